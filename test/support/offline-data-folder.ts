/**
 * A data folder with conversations made by real offline runs, for tests of what reads a data
 * folder (`npm run migrate-data`): the composition root itself (lib/server/app.ts `startApp`, the
 * file store, the engine and the built-in offline model, no HTTP) over a temporary folder whose
 * whole role library is the real Claude Code role corpus (../shared/corpus/roles, so the product's
 * roles are not seeded), on a small project folder. Each goal runs until the leader's team summary, a person
 * answering every question an agent asks and approving every tool call that waits for approval.
 * The app is closed at the end, so the folder is as a stopped server leaves it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { closeApp, startApp } from "@/lib/server/app";
import { DEMO_PROJECT } from "@/test/helpers/offline-kit";
import { until } from "@/test/helpers/wait";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** The role corpus every developer and CI run has beside the project (../shared/README.md). */
const ROLE_CORPUS = process.env.ASTRION_ROLE_CORPUS ?? path.resolve(REPO, "..", "shared", "corpus", "roles");

/** The role files of the corpus; fails (never skips) when it is missing. */
function corpusRoleFiles(): string[] {
  const files = existsSync(ROLE_CORPUS) ? readdirSync(ROLE_CORPUS).filter((f) => f.endsWith(".md") && f !== "SOURCE.md") : [];
  if (!files.length) throw new Error(`the role corpus is missing: expected the shared folder's corpus/roles at ${ROLE_CORPUS} (or set ASTRION_ROLE_CORPUS)`);
  return files;
}

/** A new temporary folder holding {@link DEMO_PROJECT}. */
export function demoProject(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-offline-project-"));
  for (const [rel, text] of Object.entries(DEMO_PROJECT)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** Runs each goal as a conversation of its own over the data folder `root` (made when missing); resolves with their ids. */
export async function runOfflineTeams(root: string, project: string, goals: readonly string[]): Promise<string[]> {
  mkdirSync(path.join(root, "agents"), { recursive: true });
  for (const f of corpusRoleFiles()) copyFileSync(path.join(ROLE_CORPUS, f), path.join(root, "agents", f));
  const delay = process.env.ASTRION_OFFLINE_DELAY_MS;
  process.env.ASTRION_OFFLINE_DELAY_MS = "0";
  const app = await startApp(root);
  const ids: string[] = [];
  try {
    for (const goal of goals) {
      const { id } = await app.store.create({ title: goal.slice(0, 60), project_path: project, model_key: "offline" });
      ids.push(id);
      await app.engine.withRun(id, (run) => run.postUserMessage(goal));
      await until(
        `the team summary of "${goal}"`,
        async () => {
          // A person answers what waits for one: questions, and approvals (this is not a test of approval).
          for (const agent of (await app.store.listAgents(id)).agents) {
            for (const pending of agent.pending_tool_calls ?? []) {
              const decide = (run: Awaited<ReturnType<typeof app.engine.runFor>>) =>
                "kind" in pending && pending.kind === "approval"
                  ? run.decideApproval(agent.agent_id, { tool_call_id: pending.tool_call_id, decision: "approve", by: "User" })
                  : run.answerQuestion(pending.question_id, "Keep it short, and note what you found.", "User", agent.agent_id);
              await app.engine.withRun(id, async (run) => void (await decide(run))).catch(() => undefined);
            }
          }
          const messages = (await app.store.readLeaderMessages(id)).messages;
          const last = messages.at(-1);
          return last?.role === "assistant" && /Team summary|团队总结/.test(String(last.content)) && !(await app.engine.runFor(id)).working;
        },
        120_000,
      );
    }
  } finally {
    await closeApp(app);
    if (delay === undefined) delete process.env.ASTRION_OFFLINE_DELAY_MS;
    else process.env.ASTRION_OFFLINE_DELAY_MS = delay;
  }
  return ids;
}

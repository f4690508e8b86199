/**
 * SIGKILL at random moments while teams work (not at safe points): the real built server runs
 * teams of 4 sub-agents against a slow fake model, and is killed — the whole process group — after
 * a random delay, then started again, CRASH_KILLS times (10 in `npm test`, 200 in
 * `npm run crash-test`). After every kill:
 * - every JSON file of the data folder parses and matches the seed format;
 * and at the end:
 * - no model call whose answer was saved was requested again (the fake fingerprints requests);
 * - no write_file ran twice (the test watches the project folder and counts each file's renames);
 * - every run finished with every report and the leader's summary.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync, type FSWatcher } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationMetadataSchema,
  IndexFileSchema,
  LeaderMessagesFileSchema,
  StateFileSchema,
} from "@/lib/contracts/on-disk";
import { crashTeam, watchWrites, type Msg } from "./helpers/crash-team";
import { startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { killServer, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const KILLS = Number(process.env.CRASH_KILLS ?? 10);
const TEAM = ["full-stack-engineer", "technical-writer", "test-engineer", "ui-operator"];
const STEP_DELAY_MS = 40;
const { handler, asked } = crashTeam(TEAM, { stepDelayMs: STEP_DELAY_MS, chunkDelayMs: 10 });

let fake: FakeOpenAI;
let server: TestServer | undefined;
let home: string;
let project: string;
let watcher: FSWatcher;
/** Renames onto each file of the project (one per completed write_file). */
const renames = new Map<string, number>();

function writeModels() {
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", timeouts: { first_response_ms: 10_000 } } } }),
  );
}

const env = { FAKE_OPENAI_KEY: "sk-fake", ASTRION_LEADER_BATCH_MS: "20" };

/** SIGKILL of the server's whole process group, once all of it is gone (test/helpers/server.ts). */
const kill = killServer;

/** Every JSON file of the data folder parses and matches the seed format. */
function checkFiles(): void {
  const conversations = path.join(home, "conversations");
  IndexFileSchema.parse(JSON.parse(readFileSync(path.join(conversations, "index.json"), "utf8")));
  StateFileSchema.parse(JSON.parse(readFileSync(path.join(home, "state.json"), "utf8")));
  for (const id of readdirSync(conversations).filter((n) => n.startsWith("conv_"))) {
    const dir = path.join(conversations, id);
    if (!existsSync(path.join(dir, "metadata.json"))) continue; // claimed, not yet written: created again on retry
    ConversationMetadataSchema.parse(JSON.parse(readFileSync(path.join(dir, "metadata.json"), "utf8")));
    LeaderMessagesFileSchema.parse(JSON.parse(readFileSync(path.join(dir, "messages.json"), "utf8")));
    const agents = path.join(dir, "agents");
    // Only agents/<agent_id> folders are the seed's; `.creating-*` stages a new agent's files.
    for (const agent of existsSync(agents) ? readdirSync(agents).filter((n) => /^[1-9]\d*$/.test(n)) : []) {
      // An agent folder is created first and its two files right after: a kill in between leaves it empty.
      if (!existsSync(path.join(agents, agent, "metadata.json"))) continue;
      AgentMetadataSchema.parse(JSON.parse(readFileSync(path.join(agents, agent, "metadata.json"), "utf8")));
      AgentMessagesFileSchema.parse(JSON.parse(readFileSync(path.join(agents, agent, "messages.json"), "utf8")));
    }
  }
}

async function leaderMessages(id: string): Promise<Msg[]> {
  return (await server!.api("GET", `/api/conversations/${id}/messages`)).json.messages;
}

/** Starts a team on a new conversation; a kill mid-request is retried on the next server. */
async function startTeam(n: number): Promise<string> {
  const created = await server!.api("POST", "/api/conversations", { title: `crash${n}`, project_path: project });
  expect(created.status).toBe(201);
  const id = created.json.conversation.id as string;
  expect((await server!.api("POST", `/api/conversations/${id}/messages`, { content: "Work as a team" })).status).toBe(202);
  return id;
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  // The product roles, allowing writes: this file tests the engine, not approval.
  seedRolesAllowingWrites(home);
  project = tempDir("astrion-project-");
  writeFileSync(path.join(project, "README.md"), "# Crash test project\n");
  writeModels();
  watcher = watchWrites(project, renames);
  server = await startServer({ home, env });
});

afterAll(async () => {
  watcher?.close();
  if (server) await kill(server);
  await fake?.close();
});

describe(`SIGKILL at random moments (${KILLS} kills)`, () => {
  it("loses nothing, repeats no saved model call and no side effect, and every run finishes", async () => {
    const teams: string[] = [];
    let current = await startTeam(0);
    teams.push(current);
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 900)));
      await kill(server!);
      checkFiles();
      server = await startServer({ home, env });
      // Keep a run going for the next kill to land in.
      const messages = await leaderMessages(current);
      if (messages.some((m) => m.role === "assistant" && String(m.content).startsWith("SUMMARY"))) {
        current = await startTeam(teams.length);
        teams.push(current);
      }
    }
    for (const id of teams) {
      const summary = await until(`the summary of ${id}`, async () => (await leaderMessages(id)).find((m) => m.role === "assistant" && String(m.content).startsWith("SUMMARY")), 60_000);
      expect(summary).toBeTruthy();
      const leader = await leaderMessages(id);
      expect(leader.filter((m) => String(m.content).includes("的任务完成汇报"))).toHaveLength(TEAM.length);
    }
    checkFiles();

    // Every saved answer was asked for once: a fingerprint asked again must not have had its
    // earlier answers saved.
    const saved = new Set<string>();
    for (const id of teams) {
      const dir = path.join(home, "conversations", id);
      const files = [path.join(dir, "messages.json"), ...readdirSync(path.join(dir, "agents")).filter((a) => /^[1-9]\d*$/.test(a) && existsSync(path.join(dir, "agents", a, "messages.json"))).map((a) => path.join(dir, "agents", a, "messages.json"))];
      for (const f of files) {
        for (const m of JSON.parse(readFileSync(f, "utf8")).messages as Msg[]) {
          for (const marker of String(m.content ?? "").match(/\[r\d+\]/g) ?? []) if (m.role === "assistant") saved.add(marker);
        }
      }
    }
    for (const markers of asked.values()) {
      const savedOnes = markers.filter((m) => saved.has(m));
      expect(savedOnes.length, `asked ${markers.length} times: ${markers.join(" ")}`).toBeLessThanOrEqual(1);
      if (savedOnes.length === 1) expect(savedOnes[0]).toBe(markers.at(-1));
    }
    // No write ran twice.
    const twice = [...renames].filter(([, n]) => n > 1);
    expect(twice).toEqual([]);
    expect(renames.size).toBeGreaterThan(0);
  }, 60 * 60_000);
});

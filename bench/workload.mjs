/**
 * The one workload the engine bench runs twice, through the app and through the floor: a leader
 * creates 3 workers; each worker calls read_file twice (a real file of a small fixture project)
 * and then report_to_leader; the leader writes a summary once all 3 reports are in. That is 11
 * model calls; the app's leader may take more when reports reach it one by one (it then answers
 * "waiting" until the last one), and those calls count too.
 *
 * The fake model decides each answer from the request alone, so the app and the floor get the
 * same answers: a request whose tools include create_sub_agent is the leader's; its system
 * message names the conversation (`Conversation: <title>`) and a worker's names the worker
 * (`You are: <name>`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The workers' roles (product roles, all with the read permission). */
export const WORKER_ROLES = ["researcher", "code-reviewer", "full-stack-engineer"];
/** The files each worker reads, in order (paths relative to the fixture project). */
const READ_FILES = ["README.md", "src/module-1.ts"];
/** The person's message that starts a run. */
export const GOAL = "Survey the project with a team of three: each reads README.md and src/module-1.ts, then reports.";
/** Model calls of one run when every answer is used (1 + 3 x 3 + 1). */
export const PLANNED_CALLS = 1 + WORKER_ROLES.length * (READ_FILES.length + 1) + 1;
/** Marks the leader's summary, so both drivers know a run is over. */
export const SUMMARY_MARK = "SUMMARY:";

/** Writes the fixture project (a README and a few small modules) into `dir`. */
export function writeFixtureProject(dir) {
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(path.join(dir, "README.md"), "# Demo\n\nA small project for the benchmark: a README and five modules under src/.\n");
  for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, "src", `module-${i}.ts`), `export const value${i} = ${i};\nexport function double${i}(x: number) {\n  return x * 2 + ${i};\n}\n`);
}

function messagesOf(body) {
  return Array.isArray(body.messages) ? body.messages : [];
}
function countCalls(body, name) {
  return messagesOf(body).reduce((n, m) => n + (m.tool_calls ?? []).filter((c) => c.function?.name === name).length, 0);
}
function reportsIn(body) {
  return messagesOf(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}

/**
 * The fake model's handler for the workload. Records who made each call in `calls`
 * (callIndex → `{ conv, who }`) and fires `summary:<conv>` on `signal` when it answers a summary.
 */
export function workloadHandler({ fakeText, fakeToolCalls }, calls, signal) {
  return (body, callIndex) => {
    const system = String(messagesOf(body)[0]?.content ?? "");
    const conv = /Conversation: (\S+)/.exec(system)?.[1] ?? "unknown";
    const leader = JSON.stringify(body.tools ?? []).includes("create_sub_agent");
    calls.set(callIndex, { conv, who: leader ? "leader" : (/You are: (\S+)/.exec(system)?.[1] ?? "worker") });
    if (leader) {
      if (countCalls(body, "create_sub_agent") === 0) {
        return fakeToolCalls(WORKER_ROLES.map((role_id, i) => ({ name: "create_sub_agent", arguments: { role_id, task: `Read the project's files, part ${i + 1}, and report what they hold.` } })));
      }
      if (reportsIn(body) >= WORKER_ROLES.length) {
        signal.fire(`summary:${conv}`);
        return fakeText(`${SUMMARY_MARK} all ${WORKER_ROLES.length} workers read ${READ_FILES.join(" and ")} and reported.`);
      }
      return fakeText("Waiting for the team's reports.");
    }
    const read = countCalls(body, "read_file");
    if (read < READ_FILES.length) return fakeToolCalls([{ name: "read_file", arguments: { path: READ_FILES[read] } }]);
    return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `Read ${READ_FILES.join(" and ")}: a README and small TypeScript modules.` } }]);
  };
}

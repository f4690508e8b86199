/**
 * The workloads the engine bench runs through the app and through the floor, on one fake model.
 * Both start alike: a leader creates 3 workers; each worker calls read_file twice (a real file of
 * a small fixture project) and then report_to_leader.
 *
 * - `short` (the bench's workload before issue 28's): the leader writes a summary once all 3
 *   reports are in, answering "waiting" when a report reaches it before the others; text
 *   answers come in 3 chunks. 11 model calls planned (12 to 14 in the app, one per early wake).
 * - `user` (a user's workload, issue 28): every text answer is 50 words and streams as a model
 *   streams it, as 50 chunks of about one token each (`textChunks` may lump them); the leader is woken by each
 *   report and answers it, as the real team does, with `send_message_to_agent` to that worker (a
 *   report that arrives while the leader works waits for its next pass and is answered with the
 *   others then); after that tool result the leader answers "waiting" or, once every report is in
 *   and answered, the summary; each worker, woken by the leader's message after its report,
 *   answers once more (text). At least 1 + 3 × 4 + 2 × 1 = 15 model calls, 21 when the leader
 *   is woken by each report separately.
 *
 * The fake model decides each answer from the request alone, so the app and the floor get the
 * same answers: a request whose tools include create_sub_agent is the leader's; its system
 * message names the conversation (`Conversation: <title>`) and a worker's names the worker
 * (`You are: <name>`). The leader's message to a worker names its agent id, read from the
 * create_sub_agent results the leader has seen.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The workers' roles (product roles, all with the read permission). */
export const WORKER_ROLES = ["researcher", "code-reviewer", "full-stack-engineer"];
/** The files each worker reads, in order (paths relative to the fixture project). */
const READ_FILES = ["README.md", "src/module-1.ts"];
/** The person's message that starts a run. */
export const GOAL = "Survey the project with a team of three: each reads README.md and src/module-1.ts, then reports.";
/** Marks the leader's summary, so both drivers know a run is over. */
export const SUMMARY_MARK = "SUMMARY:";
/** Chunks of a text answer in the `user` workload unless told otherwise. */
export const USER_TEXT_CHUNKS = 50;
/** What the leader says to a worker after its report (the worker answers it with text). */
const FOLLOW_UP = "Thanks. In one line: anything else the team should know?";

/** Writes the fixture project (a README and a few small modules) into `dir`. */
export function writeFixtureProject(dir) {
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(path.join(dir, "README.md"), "# Demo\n\nA small project for the benchmark: a README and five modules under src/.\n");
  for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, "src", `module-${i}.ts`), `export const value${i} = ${i};\nexport function double${i}(x: number) {\n  return x * 2 + ${i};\n}\n`);
}

const FILLER = "the team read every file it was given and found small typed modules with one export each and a short readme that says what the project is for".split(" ");

/**
 * `text` made `words` words long (its own words first, then filler) and cut into `chunks` pieces:
 * with `chunks` = `words`, one word with its leading space per piece, about one token each, as a
 * tokenizer cuts it; with fewer, the same text in fewer, longer pieces. Pure.
 */
function tokenPieces(text, words = USER_TEXT_CHUNKS, chunks = words) {
  const all = text.split(" ").filter(Boolean);
  for (let i = 0; all.length < words; i++) all.push(FILLER[i % FILLER.length]);
  const tokens = all.map((w, i) => (i === 0 ? w : ` ${w}`));
  const n = Math.max(1, Math.min(chunks, tokens.length));
  const size = Math.ceil(tokens.length / n);
  const pieces = [];
  for (let i = 0; i < tokens.length; i += size) pieces.push(tokens.slice(i, i + size).join(""));
  return pieces;
}

function messagesOf(body) {
  return Array.isArray(body.messages) ? body.messages : [];
}
function countCalls(body, name) {
  return messagesOf(body).reduce((n, m) => n + (m.tool_calls ?? []).filter((c) => c.function?.name === name).length, 0);
}
const REPORT = /来自 (.+?) 的任务完成汇报\nid: /;
/** Display names of the workers whose reports the request holds, in order. */
function reportersIn(body) {
  return messagesOf(body)
    .filter((m) => m.role === "user")
    .map((m) => REPORT.exec(String(m.content ?? ""))?.[1])
    .filter(Boolean);
}
/** Agent id by display name, from the create_sub_agent results the request holds. */
function agentIdsIn(body) {
  const ids = new Map();
  for (const m of messagesOf(body)) {
    if (m.role !== "tool" || typeof m.content !== "string" || !m.content.includes('"display_name"')) continue;
    try {
      const r = JSON.parse(m.content);
      if (typeof r.display_name === "string" && Number.isInteger(r.agent_id)) ids.set(r.display_name, r.agent_id);
    } catch {
      /* not a create_sub_agent result */
    }
  }
  return ids;
}
/** Agent ids the leader has already sent its follow-up to. */
function messagedIn(body) {
  const ids = new Set();
  for (const m of messagesOf(body)) {
    for (const c of m.tool_calls ?? []) {
      if (c.function?.name !== "send_message_to_agent") continue;
      try {
        ids.add(Number(JSON.parse(c.function.arguments).agent_id));
      } catch {
        /* arguments not JSON: not ours */
      }
    }
  }
  return ids;
}

/**
 * The fake model's handler. `mode` is read at every call, so one fake serves workloads in turn:
 * `mode.shape` ("short" or "user") and `mode.textChunks` (pieces of each text answer in "user":
 * 50 words, by default one per chunk; 1 sends the same 50 words in one chunk).
 * Records who made each call in `calls` (callIndex → `{ conv, who, text, tools, summary }`: the
 * answer was text, the tools it called, it was the leader's summary) and fires
 * `summary:<conv>` on `signal` when it answers a summary.
 */
export function workloadHandler({ fakeText, fakeToolCalls }, calls, signal, mode = { shape: "user", textChunks: USER_TEXT_CHUNKS }) {
  return (body, callIndex) => {
    const user = mode.shape === "user";
    const text = (content) => (user ? fakeText(tokenPieces(content, USER_TEXT_CHUNKS, mode.textChunks ?? USER_TEXT_CHUNKS)) : fakeText(content));
    const system = String(messagesOf(body)[0]?.content ?? "");
    const conv = /Conversation: (\S+)/.exec(system)?.[1] ?? "unknown";
    const leader = JSON.stringify(body.tools ?? []).includes("create_sub_agent");
    const record = { conv, who: leader ? "leader" : (/You are: ([^(\n]+)/.exec(system)?.[1]?.trim() ?? "worker"), text: false, tools: [], summary: false };
    calls.set(callIndex, record);
    const answer = (() => {
      if (leader) {
        if (countCalls(body, "create_sub_agent") === 0) {
          return fakeToolCalls(WORKER_ROLES.map((role_id, i) => ({ name: "create_sub_agent", arguments: { role_id, task: `Read the project's files, part ${i + 1}, and report what they hold.` } })));
        }
        const reporters = reportersIn(body);
        if (user) {
          const ids = agentIdsIn(body);
          const messaged = messagedIn(body);
          const unanswered = reporters.map((name) => ids.get(name)).filter((id) => id !== undefined && !messaged.has(id));
          if (unanswered.length) return fakeToolCalls(unanswered.map((agent_id) => ({ name: "send_message_to_agent", arguments: { agent_id, content: FOLLOW_UP } })));
        }
        if (reporters.length >= WORKER_ROLES.length) {
          record.summary = true;
          signal.fire(`summary:${conv}`);
          return text(`${SUMMARY_MARK} all ${WORKER_ROLES.length} workers read ${READ_FILES.join(" and ")} and reported.`);
        }
        return text("Waiting for the team's reports.");
      }
      if (user && countCalls(body, "report_to_leader") > 0) return text("Nothing else: the modules are small and each has one export.");
      const read = countCalls(body, "read_file");
      if (read < READ_FILES.length) return fakeToolCalls([{ name: "read_file", arguments: { path: READ_FILES[read] } }]);
      return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `Read ${READ_FILES.join(" and ")}: a README and small TypeScript modules.` } }]);
    })();
    record.text = !answer.toolCalls;
    // What the answer was, for the bench's check that another driver (a peer) made the same calls.
    record.tools = (answer.toolCalls ?? []).map((c) => c.name);
    return answer;
  };
}

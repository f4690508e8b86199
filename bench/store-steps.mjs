/**
 * The store's CPU per model call, in process (no server, no model): ten open conversations, each
 * with a leader and two sub-agents, driven through the conversation store the way the engine
 * saves a step — per sub-agent model call its status set running, the assistant message with a
 * tool call and the tool's result appended, a timeline line, the status set back; a leader pass
 * every third call — with the history search observing every change, as in the server. Prints
 * JSON: CPU ms per model call (median of repetitions) and the step log's syncs.
 *
 * `node bench/store-steps.mjs [calls per conversation] [repetitions]` (default 60, 5).
 * `--cpu-prof` on the node command line profiles it.
 */
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { importTsGraph } from "./ts-module.mjs";

const CONVERSATIONS = 10;
const CALLS = Number(process.argv[2] ?? 60);
const REPS = Number(process.argv[3] ?? 5);

const { mods, cleanup } = await importTsGraph(["test/helpers/conversation-store.ts", "lib/search/index.ts"], { allowServerOnly: true });
const [{ newConversationStore }, { startSearch }] = mods;

let n = 0;
const text = (words) => Array.from({ length: words }, (_, i) => `word${(i * 7919 + n) % 1000}`).join(" ");

function assistantCall() {
  n++;
  return {
    role: "assistant",
    content: null,
    message_id: `msg_${n}`,
    tool_calls: [{ id: `call_${n}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/file${n % 40}.ts` }) } }],
    metadata: { message_source: "sub_agent", visibility: "hidden" },
  };
}

function toolResult(callId) {
  n++;
  return { role: "tool", content: text(400), message_id: `msg_${n}`, tool_call_id: callId, metadata: { message_source: "system", visibility: "hidden" } };
}

/** One sub-agent model call and what the engine saves for it. */
async function agentCall(store, convId, agentId, k) {
  await store.updateAgentMetadata(convId, agentId, (m) => ({ ...m, status: "running" }));
  const call = assistantCall();
  await store.updateAgentMessages(convId, agentId, (f) => ({ ...f, messages: [...f.messages, call] }));
  await store.updateAgentMessages(convId, agentId, (f) => ({ ...f, messages: [...f.messages, toolResult(call.tool_calls[0].id)] }));
  await store.appendLine(convId, "timeline.jsonl", JSON.stringify({ type: "tool_call", agent_id: agentId, n: k, text: text(20) }));
  await store.updateAgentMetadata(convId, agentId, (m) => ({ ...m, status: "idle", task_summary: `step ${k}` }));
}

async function leaderPass(store, convId, k) {
  n++;
  const message = { role: "assistant", content: text(60), message_id: `msg_${n}`, metadata: { message_source: "leader", visibility: "chat" } };
  await store.updateLeaderMessages(convId, (f) => ({ ...f, messages: [...f.messages, message] }));
  await store.appendLine(convId, "timeline.jsonl", JSON.stringify({ type: "message", n: k }));
}

async function conversationRun(store, convId, agents) {
  for (let k = 0; k < CALLS; k++) {
    await agentCall(store, convId, agents[k % agents.length], k);
    if (k % 3 === 2) await leaderPass(store, convId, k);
  }
}

const root = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-steps-"));
const project = path.join(root, "project");
mkdirSync(project);
const results = [];
try {
  for (let rep = 0; rep <= REPS; rep++) {
    const home = path.join(root, `home-${rep}`);
    const store = newConversationStore(home);
    await store.init();
    const search = await startSearch(home, store, {});
    const convs = [];
    for (let c = 0; c < CONVERSATIONS; c++) {
      const meta = await store.create({ title: `Steps ${c}`, project_path: project, model_key: "offline" });
      const agents = [];
      for (let a = 0; a < 2; a++) agents.push((await store.createAgent(meta.id, { role_id: "researcher", role_name: "Researcher" })).agent_id);
      await store.open(meta.id);
      convs.push({ id: meta.id, agents });
    }
    const calls = CONVERSATIONS * (CALLS + Math.floor(CALLS / 3));
    const before = process.cpuUsage();
    const started = performance.now();
    await Promise.all(convs.map((c) => conversationRun(store, c.id, c.agents)));
    // The background work a step leaves (seed rewrites, the search index's write) counts too.
    await new Promise((r) => setTimeout(r, 150));
    await search.flush();
    const cpu = process.cpuUsage(before);
    const wall = performance.now() - started;
    await store.closeAll();
    for (const c of convs) await store.closeLineFiles(c.id);
    await search.close();
    await store.flushIndex();
    // The first repetition warms the JIT and is not counted.
    if (rep > 0) results.push({ cpu_ms_per_call: (cpu.user + cpu.system) / 1000 / calls, wall_ms: wall, calls });
  }
} finally {
  cleanup();
  rmSync(root, { recursive: true, force: true });
}
const sorted = results.map((r) => r.cpu_ms_per_call).sort((a, b) => a - b);
console.log(
  JSON.stringify({
    conversations: CONVERSATIONS,
    model_calls_per_rep: results[0]?.calls,
    reps: results.length,
    cpu_ms_per_call_median: +sorted[Math.floor(sorted.length / 2)].toFixed(4),
    cpu_ms_per_call_all: sorted.map((x) => +x.toFixed(4)),
    wall_ms_median: +results.map((r) => r.wall_ms).sort((a, b) => a - b)[Math.floor(results.length / 2)].toFixed(1),
  }),
);

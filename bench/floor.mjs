/**
 * The floor of the engine bench: the workloads of bench/workload.mjs done by a bare tool loop on
 * the real `openai` client (streaming chat completions with tools, as the app calls models),
 * against the same fake model, with no server, no store, no events: what any implementation must
 * at least spend. Workers run concurrently, as in the app; read_file really reads the fixture
 * project's file. The leader sees each worker's report as the app shows it (the seed's
 * `来自 … 的任务完成汇报` header). In the `user` workload the leader is a loop woken by each
 * report, as the app's is (a report that arrives while it works waits for its next pass), and
 * sends each reporter its follow-up, which the worker answers with one more call; the run is over
 * when the leader has summarized and every worker has answered.
 *
 * Durability and viewers: none, as before issue 28's workload. The floor writes nothing and
 * streams to no one; what the app spends on both is part of its overhead over the floor.
 *
 * It runs with either of two transports under the client: the `fetch` the `openai` client uses
 * by default (Node's own; the floor the issue names) or the app's own (`modelFetch` of
 * lib/models/http-fetch.ts, over node:http), so the app's overhead can be read against both.
 *
 * It runs in a child process (`startFloor()` forks this file), so its CPU time from
 * `process.cpuUsage()` is the loop's own and not the fake model's, which lives in the parent,
 * just as the app server's CPU time excludes it.
 */
import { fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { mainThreadCpuMs } from "./conversation.mjs";
import { importTsGraph } from "./ts-module.mjs";
import { GOAL, SUMMARY_MARK, WORKER_ROLES } from "./workload.mjs";

const fn = (name, description, parameters) => ({ type: "function", function: { name, description, parameters } });
const LEADER_TOOLS = [
  fn("create_sub_agent", "Create a sub-agent from a registered role and give it a task.", {
    type: "object",
    properties: { role_id: { type: "string", enum: WORKER_ROLES }, task: { type: "string" } },
    required: ["role_id", "task"],
  }),
];
/** The leader's tools in the `user` workload: it also messages its workers. */
const LEADER_TOOLS_USER = [
  ...LEADER_TOOLS,
  fn("send_message_to_agent", "Send a message to one of your sub-agents (it reads it before its next step).", {
    type: "object",
    properties: { agent_id: { type: "integer" }, content: { type: "string" } },
    required: ["agent_id", "content"],
  }),
];
const WORKER_TOOLS = [
  fn("report_to_leader", "Report your finished work to the Team Leader. This ends your task.", {
    type: "object",
    properties: { summary: { type: "string" } },
    required: ["summary"],
  }),
  fn("read_file", "Read a text file of the project folder.", { type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
];

/** One streamed call: the assistant message it produced (text and tool calls, assembled from deltas). */
async function complete(client, messages, tools) {
  const stream = await client.chat.completions.create({ model: "fake", messages, tools, stream: true, stream_options: { include_usage: true } });
  let content = "";
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) content += delta.content;
    for (const part of delta.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
    }
  }
  return { role: "assistant", content: content || null, ...(calls.length ? { tool_calls: calls } : {}) };
}

/** One worker: calls until it reports; returns its report and the calls it made. */
async function worker(client, project, conv, name, task) {
  const messages = [
    { role: "system", content: `You are: ${name}\nConversation: ${conv}\nProject folder: ${project}. Use read_file, then report_to_leader.` },
    { role: "user", content: `来自 Team Leader 的任务发布\nid: task_${name}\n\n${task}` },
  ];
  for (let calls = 1; ; calls++) {
    const answer = await complete(client, messages, WORKER_TOOLS);
    messages.push(answer);
    const call = answer.tool_calls?.[0];
    if (!call) return { name, summary: answer.content ?? "", calls, messages };
    const args = JSON.parse(call.function.arguments || "{}");
    if (call.function.name === "report_to_leader") return { name, summary: String(args.summary), calls, messages, reportCallId: call.id };
    let result;
    try {
      const file = path.resolve(project, String(args.path));
      if (!file.startsWith(project + path.sep)) throw new Error("outside the project folder");
      result = await readFile(file, "utf8");
    } catch (error) {
      result = `error: ${error.message}`;
    }
    messages.push({ role: "tool", tool_call_id: call.id, content: result });
  }
}

/** One run of the workload; returns the model calls it made. */
async function runOnce(client, project, conv) {
  const leader = [
    { role: "system", content: `You are the Team Leader.\nConversation: ${conv}\nProject folder (the agents' workspace): ${project}` },
    { role: "user", content: GOAL },
  ];
  let calls = 0;
  const plan = await complete(client, leader, LEADER_TOOLS);
  calls++;
  leader.push(plan);
  const creates = (plan.tool_calls ?? []).filter((c) => c.function.name === "create_sub_agent");
  const started = creates.map((c, i) => {
    const { role_id, task } = JSON.parse(c.function.arguments);
    const name = `${role_id}_${i + 1}`;
    leader.push({ role: "tool", tool_call_id: c.id, content: JSON.stringify({ agent_id: i + 1, display_name: name, status: "running" }) });
    return worker(client, project, conv, name, task);
  });
  const reports = await Promise.all(started);
  for (const [i, r] of reports.entries()) {
    calls += r.calls;
    leader.push({ role: "user", content: `来自 ${r.name} 的任务完成汇报\nid: out_${String(i + 1).padStart(3, "0")}\n\n${r.summary}` });
  }
  const summary = await complete(client, leader, LEADER_TOOLS);
  calls++;
  if (!String(summary.content ?? "").includes(SUMMARY_MARK)) throw new Error(`floor run ${conv} ended without a summary`);
  return calls;
}

/**
 * One run of the `user` workload; returns the model calls it made. The leader is a loop woken by
 * each report; each worker, after its report, waits for the leader's message and answers it.
 */
async function runUser(client, project, conv) {
  let calls = 0;
  const leader = [
    { role: "system", content: `You are the Team Leader.\nConversation: ${conv}\nProject folder (the agents' workspace): ${project}` },
    { role: "user", content: GOAL },
  ];
  const inbox = [];
  const followUps = new Map();
  const followUpFor = (agentId) => {
    if (!followUps.has(agentId)) {
      let resolve;
      followUps.set(agentId, { promise: new Promise((r) => (resolve = r)), resolve });
    }
    return followUps.get(agentId);
  };
  let summarized = false;
  let running = null;
  let again = false;
  let messageIds = 0;
  const leaderPasses = async () => {
    for (;;) {
      again = false;
      if (inbox.length) leader.push(...inbox.splice(0));
      const last = leader.at(-1);
      if (last.role !== "user" && last.role !== "tool") return;
      const answer = await complete(client, leader, LEADER_TOOLS_USER);
      calls++;
      leader.push(answer);
      if (!answer.tool_calls) {
        if (String(answer.content ?? "").includes(SUMMARY_MARK)) summarized = true;
        continue;
      }
      for (const c of answer.tool_calls) {
        const args = JSON.parse(c.function.arguments || "{}");
        if (c.function.name !== "send_message_to_agent") throw new Error(`floor leader called ${c.function.name}`);
        const id = `msg_tl_${String(++messageIds).padStart(3, "0")}`;
        followUpFor(Number(args.agent_id)).resolve({ id, content: String(args.content) });
        leader.push({ role: "tool", tool_call_id: c.id, content: JSON.stringify({ delivered: true, message_id: id }) });
      }
    }
  };
  const wake = () => {
    if (running) {
      again = true;
      return;
    }
    running = leaderPasses().finally(() => {
      running = null;
      if (again) wake();
    });
  };

  const plan = await complete(client, leader, LEADER_TOOLS_USER);
  calls++;
  leader.push(plan);
  const creates = (plan.tool_calls ?? []).filter((c) => c.function.name === "create_sub_agent");
  const tasks = creates.map((c, i) => {
    const { role_id, task } = JSON.parse(c.function.arguments);
    const name = `${role_id}_${i + 1}`;
    leader.push({ role: "tool", tool_call_id: c.id, content: JSON.stringify({ agent_id: i + 1, display_name: name, task_id: `task_${i + 1}` }) });
    return { name, task, agentId: i + 1 };
  });
  // Its tool results call for another answer, as in the app (the fake answers "waiting").
  wake();
  let reports = 0;
  const started = tasks.map(async ({ name, task, agentId }) => {
    const w = await worker(client, project, conv, name, task);
    const reportId = `out_${String(++reports).padStart(3, "0")}`;
    w.messages.push({ role: "tool", tool_call_id: w.reportCallId, content: JSON.stringify({ delivered: true, report_id: reportId }) });
    inbox.push({ role: "user", content: `来自 ${name} 的任务完成汇报\nid: ${reportId}\n\n${w.summary}` });
    wake();
    const message = await followUpFor(agentId).promise;
    w.messages.push({ role: "user", content: `来自 Team Leader 的消息\nid: ${message.id}\n\n${message.content}` });
    const answer = await complete(client, w.messages, WORKER_TOOLS);
    if (answer.tool_calls) throw new Error(`floor worker ${name} called a tool after its report`);
    return w.calls + 1;
  });
  for (const n of await Promise.all(started)) calls += n;
  while (running) await running;
  if (!summarized) throw new Error(`floor run ${conv} ended without a summary`);
  return calls;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const mainMs = () => mainThreadCpuMs(process.pid);

/** The child: answers `{ id, kind: "sequential" | "concurrent", count, prefix, transport: "fetch" | "app", shape: "short" | "user" }` requests over IPC. */
async function child() {
  const { url, project } = JSON.parse(process.argv[3]);
  const { mods, cleanup } = await importTsGraph(["lib/models/http-fetch.ts"], { allowServerOnly: true });
  cleanup();
  const clients = {
    fetch: new OpenAI({ baseURL: url, apiKey: "sk-bench-floor", maxRetries: 0 }),
    app: new OpenAI({ baseURL: url, apiKey: "sk-bench-floor", maxRetries: 0, fetch: mods[0].modelFetch }),
  };
  process.on("message", async ({ id, kind, count, prefix, transport, shape }) => {
    try {
      const client = clients[transport];
      const runOne = shape === "user" ? runUser : runOnce;
      let result;
      if (kind === "sequential") {
        result = [];
        for (let i = 0; i < count; i++) {
          const [t, c, m] = [performance.now(), cpuMs(), mainMs()];
          const calls = await runOne(client, project, `${prefix}-${i}`);
          result.push({ wall_ms: performance.now() - t, cpu_ms: cpuMs() - c, main_thread_cpu_ms: mainMs() - m, calls });
        }
      } else {
        const [t, c, m] = [performance.now(), cpuMs(), mainMs()];
        const calls = await Promise.all(Array.from({ length: count }, (_, i) => runOne(client, project, `${prefix}-${i}`)));
        result = { wall_ms: performance.now() - t, cpu_ms: cpuMs() - c, main_thread_cpu_ms: mainMs() - m, calls: calls.reduce((a, b) => a + b, 0) };
      }
      process.send({ id, result });
    } catch (error) {
      process.send({ id, error: String(error?.stack ?? error) });
    }
  });
  process.send({ ready: true });
}

/**
 * Forks the floor. `sequential(count, prefix, { transport, shape })` runs the workload `count`
 * times one after another (per run: wall and CPU milliseconds, model calls); `concurrent(count,
 * prefix, { transport, shape })` runs `count` at once (totals). `transport` is "fetch" (the
 * client's default) or "app" (the app's `modelFetch`); `shape` is "short" or "user" (the fake's
 * handler must be set to the same). Conversation names are `<prefix>-<n>`. `stop()` ends the child.
 */
export async function startFloor({ url, project }) {
  const proc = fork(fileURLToPath(import.meta.url), ["--child", JSON.stringify({ url, project })], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const pending = new Map();
  let nextId = 0;
  await new Promise((resolve, reject) => {
    proc.once("error", reject);
    proc.once("exit", (code) => reject(new Error(`floor exited with ${code} before it was ready`)));
    proc.once("message", resolve);
  });
  proc.on("message", ({ id, result, error }) => {
    const p = pending.get(id);
    pending.delete(id);
    if (error) p?.reject(new Error(error));
    else p?.resolve(result);
  });
  const ask = (kind, count, prefix, { transport = "fetch", shape = "short" } = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      proc.send({ id, kind, count, prefix, transport, shape });
    });
  return {
    pid: proc.pid,
    sequential: (count, prefix, options) => ask("sequential", count, prefix, options),
    concurrent: (count, prefix, options) => ask("concurrent", count, prefix, options),
    stop: () => {
      proc.removeAllListeners("exit");
      proc.kill();
    },
  };
}

if (process.argv[2] === "--child") await child();

/**
 * A peer of the engine bench: the floor's user workload (bench/floor.mjs `runUser`) expressed in
 * OpenAI Agents JS, as its documentation builds a team. It persists nothing (Agents JS keeps a
 * run's history in memory and hands it back as `result.history`).
 *
 * - The Team Leader is an `Agent` with two function tools: `create_sub_agent` starts a worker's
 *   run (not awaited: workers run concurrently, as in the app and the floor) and answers with the
 *   agent's id and name; `send_message_to_agent` delivers the leader's follow-up to a worker.
 * - A worker is an `Agent` with `read_file` (really reads the fixture project's file) and
 *   `report_to_leader`, which puts the report in the leader's inbox and wakes it; the run stops at
 *   that tool (`toolUseBehavior.stopAtToolNames`), and once the leader's message arrives the
 *   worker runs again on its history plus that message and answers it.
 * - Not `worker.asTool()`: that tool awaits the worker's whole run and answers with its output, so
 *   the leader could neither go on while its workers run nor message one after its report, as the
 *   workload (and the app) has it.
 * - The leader is woken by each report, as the floor's is: a pass is one `run()` on its history
 *   plus the reports that arrived (with the seed's `来自 … 的任务完成汇报` header); a report that
 *   arrives during a pass waits for the next one.
 *
 * Every run is `run(agent, input, { stream: true })`, its events consumed as a viewer would,
 * against the fake model through `OpenAIChatCompletionsModel` (the fake speaks chat completions,
 * as the app's models do) on the same `openai` client version as the floor. Tracing is off: it
 * would export to OpenAI's servers. The packages come from the peers' cache folder
 * (bench/peer-install.mjs), never from this checkout.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { peerRequire } from "./peer-install.mjs";
import { forkPeer, servePeer } from "./peer-runner.mjs";
import { GOAL, SUMMARY_MARK, WORKER_ROLES } from "./workload.mjs";

/** The child: builds the two agents once and runs conversations on them. */
async function setup({ url, project, dir }) {
  const require = peerRequire(dir);
  const { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } = require("@openai/agents");
  const { default: OpenAI } = require("openai");
  const { z } = require("zod");
  setTracingDisabled(true);
  // A user message item with plain-string content (the `user()` helper makes a list of parts; the
  // app and the floor send a string, and the fake recognises reports in strings).
  const user = (content) => ({ type: "message", role: "user", content });
  const model = new OpenAIChatCompletionsModel(new OpenAI({ baseURL: url, apiKey: "sk-bench-peer", maxRetries: 0 }), "fake");

  /** Runs `agent` on `input` streamed, consumes its events; returns the result and its model calls. */
  const streamed = async (agent, input, context) => {
    const result = await run(agent, input, { stream: true, context });
    for await (const event of result) void event;
    await result.completed;
    return { result, calls: result.rawResponses.length };
  };

  const readFileTool = tool({
    name: "read_file",
    description: "Read a text file of the project folder.",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path: relative }) => {
      try {
        const file = path.resolve(project, relative);
        if (!file.startsWith(project + path.sep)) throw new Error("outside the project folder");
        return await readFile(file, "utf8");
      } catch (error) {
        return `error: ${error.message}`;
      }
    },
  });
  const reportTool = tool({
    name: "report_to_leader",
    description: "Report your finished work to the Team Leader. This ends your task.",
    parameters: z.object({ summary: z.string() }),
    execute: ({ summary }, ctx) => JSON.stringify({ delivered: true, report_id: ctx.context.team.report(ctx.context.name, summary) }),
  });
  const worker = new Agent({
    name: "worker",
    model,
    instructions: (ctx) => `You are: ${ctx.context.name}\nConversation: ${ctx.context.team.conv}\nProject folder: ${project}. Use read_file, then report_to_leader.`,
    tools: [readFileTool, reportTool],
    toolUseBehavior: { stopAtToolNames: ["report_to_leader"] },
  });

  const createTool = tool({
    name: "create_sub_agent",
    description: "Create a sub-agent from a registered role and give it a task.",
    parameters: z.object({ role_id: z.enum(WORKER_ROLES), task: z.string() }),
    execute: ({ role_id, task }, ctx) => JSON.stringify(ctx.context.start(role_id, task)),
  });
  const messageTool = tool({
    name: "send_message_to_agent",
    description: "Send a message to one of your sub-agents (it reads it before its next step).",
    parameters: z.object({ agent_id: z.number().int(), content: z.string() }),
    execute: ({ agent_id, content }, ctx) => JSON.stringify({ delivered: true, message_id: ctx.context.deliver(agent_id, content) }),
  });
  const leader = new Agent({
    name: "Team Leader",
    model,
    instructions: (ctx) => `You are the Team Leader.\nConversation: ${ctx.context.conv}\nProject folder (the agents' workspace): ${project}`,
    tools: [createTool, messageTool],
  });

  /** One conversation: the leader's passes, its workers, their follow-ups. */
  async function runUser(conv) {
    let calls = 0;
    let history = [user(GOAL)];
    let summarized = false;
    const inbox = [];
    const followUps = new Map();
    const followUpFor = (agentId) => {
      if (!followUps.has(agentId)) {
        let resolve;
        followUps.set(agentId, { promise: new Promise((r) => (resolve = r)), resolve });
      }
      return followUps.get(agentId);
    };
    const workers = [];
    // The first error of any of the run's promises (a pass, a worker) ends the run with it.
    let fail;
    const failed = new Promise((_, reject) => (fail = reject));
    failed.catch(() => {});
    const settle = (promise) => Promise.race([promise, failed]);
    let reports = 0;
    let messageIds = 0;
    const team = {
      conv,
      report: (name, summary) => {
        const id = `out_${String(++reports).padStart(3, "0")}`;
        inbox.push(user(`来自 ${name} 的任务完成汇报\nid: ${id}\n\n${summary}`));
        // Woken once the tool has answered, as the floor's leader is after the report is recorded.
        queueMicrotask(wake);
        return id;
      },
    };
    const context = {
      conv,
      start: (roleId, task) => {
        const agentId = workers.length + 1;
        const name = `${roleId}_${agentId}`;
        const w = runWorker(name, agentId, task);
        w.catch(fail);
        workers.push(w);
        return { agent_id: agentId, display_name: name, task_id: `task_${agentId}` };
      },
      deliver: (agentId, content) => {
        const id = `msg_tl_${String(++messageIds).padStart(3, "0")}`;
        followUpFor(agentId).resolve({ id, content });
        return id;
      },
    };
    async function runWorker(name, agentId, task) {
      const own = { name, team };
      const first = await streamed(worker, `来自 Team Leader 的任务发布\nid: task_${name}\n\n${task}`, own);
      const message = await followUpFor(agentId).promise;
      const second = await streamed(worker, [...first.result.history, user(`来自 Team Leader 的消息\nid: ${message.id}\n\n${message.content}`)], own);
      return first.calls + second.calls;
    }
    let running = null;
    let again = false;
    const pass = async () => {
      for (;;) {
        again = false;
        if (!inbox.length && calls > 0) return;
        history = [...history, ...inbox.splice(0)];
        const { result, calls: n } = await streamed(leader, history, context);
        calls += n;
        history = result.history;
        if (String(result.finalOutput ?? "").includes(SUMMARY_MARK)) summarized = true;
      }
    };
    function wake() {
      if (running) {
        again = true;
        return;
      }
      const current = pass().finally(() => {
        running = null;
        if (again) wake();
      });
      // Its error reaches the run through `fail`; the awaits below race `failed`.
      current.catch(fail);
      running = current;
    }
    wake();
    // The leader's first pass starts the workers; wait for it, then for them and the passes they wake.
    while (running) await settle(running);
    for (const n of await settle(Promise.all(workers))) calls += n;
    while (running) await settle(running);
    if (!summarized) throw new Error(`Agents JS run ${conv} ended without a summary`);
    return calls;
  }
  return { runUser, close: async () => {} };
}

/** Forks the Agents JS peer (see the header) on the fake at `url`, packages from `dir`. */
export function startAgentsPeer({ url, project, dir }) {
  return forkPeer(fileURLToPath(import.meta.url), { url, project, dir }, { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: "1" });
}

if (process.argv[2] === "--child") await servePeer(setup);

/**
 * A peer of the engine bench: the floor's user workload (bench/floor.mjs `runUser`) expressed in
 * LangGraph.js, as its documentation builds a supervised team, with a checkpointer persisting
 * every step: SQLite (`@langchain/langgraph-checkpoint-sqlite`, a database file in a temporary
 * folder, issue 28) or PostgreSQL (`@langchain/langgraph-checkpoint-postgres`, on the throwaway
 * cluster of bench/pg-cluster.mjs, issue 31).
 *
 * One `StateGraph`, one thread per conversation (`thread_id` = the conversation's name). Its state
 * is the leader's messages and the team (each worker's id and messages). Nodes:
 * - `leader`: one streamed model call (`ChatOpenAI` with the leader's tools bound) on its messages;
 *   with tool calls it goes on to `team`, else it ends its branch.
 * - `team`: runs the leader's tool calls (the equivalent of a ToolNode for tools that steer the
 *   graph): `create_sub_agent` answers with the agent's id and name and fans the worker out with a
 *   `Send`; `send_message_to_agent` delivers the follow-up by sending that worker its history plus
 *   the message. It returns a `Command` that also wakes the leader, whose tool results call for an
 *   answer: the leader and the workers run concurrently in the same superstep.
 * - `worker`: runs the worker subgraph (agent node ⇄ a `ToolNode` of `read_file`, which really
 *   reads the fixture project's file, and `report_to_leader`, after which it ends) on what it was
 *   sent, inside the parent's checkpointer (each of its steps is checkpointed too, under its own
 *   namespace); a worker that reported puts its report in the leader's messages (with the seed's
 *   `来自 … 的任务完成汇报` header) and wakes the leader.
 *
 * Where it differs from the floor is LangGraph's own scheduling: a superstep ends when all its
 * tasks have, so the leader is woken once by the reports of one superstep (the three workers do
 * the same steps, so they report together) rather than by each as it lands. The fake answers it
 * the same way (one `send_message_to_agent` per report); the bench checks that every run made the
 * calls the floor makes (bench/peers.mjs).
 *
 * Each conversation is `graph.stream(…, { streamMode: "messages", subgraphs: true, durability:
 * "sync" })`, its token chunks consumed as a viewer would: "sync" saves each step's checkpoint
 * before the next step starts, the guarantee the app gives (every step durable before it goes on).
 * The packages come from the peers' cache folder (bench/peer-install.mjs), never from this checkout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { peerRequire } from "./peer-install.mjs";
import { forkPeer, servePeer } from "./peer-runner.mjs";
import { GOAL, SUMMARY_MARK, WORKER_ROLES } from "./workload.mjs";

/** The checkpointer of `saver` ("sqlite" or "postgres"), and how to close it. */
async function openSaver(require, saver, databaseUrl) {
  if (saver === "sqlite") {
    const { SqliteSaver } = require("@langchain/langgraph-checkpoint-sqlite");
    const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-langgraph-"));
    const checkpointer = SqliteSaver.fromConnString(path.join(dir, "checkpoints.sqlite"));
    return {
      checkpointer,
      close: async () => {
        checkpointer.db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (saver === "postgres") {
    const { PostgresSaver } = require("@langchain/langgraph-checkpoint-postgres");
    const checkpointer = PostgresSaver.fromConnString(databaseUrl);
    await checkpointer.setup();
    return { checkpointer, close: () => checkpointer.end() };
  }
  throw new Error(`unknown LangGraph checkpointer "${saver}"`);
}

/** The child: compiles the graph once and runs conversations on it. */
async function setup({ url, project, dir, saver, databaseUrl }) {
  const require = peerRequire(dir);
  const { Annotation, Command, END, getCurrentTaskInput, MessagesAnnotation, Send, START, StateGraph } = require("@langchain/langgraph");
  const { ToolNode } = require("@langchain/langgraph/prebuilt");
  const { HumanMessage, SystemMessage, ToolMessage } = require("@langchain/core/messages");
  const { tool } = require("@langchain/core/tools");
  const { ChatOpenAI } = require("@langchain/openai");
  const { z } = require("zod");
  const storage = await openSaver(require, saver, databaseUrl);
  const chat = new ChatOpenAI({ model: "fake", apiKey: "sk-bench-peer", configuration: { baseURL: url }, streaming: true, maxRetries: 0 });
  const conversationOf = (config) => config.configurable.thread_id;

  // The worker subgraph: agent ⇄ tools until report_to_leader; its follow-up answer ends it too.
  const readFileTool = tool(
    async ({ path: relative }) => {
      try {
        const file = path.resolve(project, relative);
        if (!file.startsWith(project + path.sep)) throw new Error("outside the project folder");
        return await readFile(file, "utf8");
      } catch (error) {
        return `error: ${error.message}`;
      }
    },
    { name: "read_file", description: "Read a text file of the project folder.", schema: z.object({ path: z.string() }) },
  );
  const reportTool = tool(() => JSON.stringify({ delivered: true, report_id: `out_${String(getCurrentTaskInput().agentId).padStart(3, "0")}` }), {
    name: "report_to_leader",
    description: "Report your finished work to the Team Leader. This ends your task.",
    schema: z.object({ summary: z.string() }),
  });
  const workerModel = chat.bindTools([readFileTool, reportTool]);
  const WorkerState = Annotation.Root({ ...MessagesAnnotation.spec, name: Annotation(), agentId: Annotation() });
  const workerGraph = new StateGraph(WorkerState)
    .addNode("agent", async (state, config) => {
      const system = new SystemMessage(`You are: ${state.name}\nConversation: ${conversationOf(config)}\nProject folder: ${project}. Use read_file, then report_to_leader.`);
      return { messages: [await workerModel.invoke([system, ...state.messages], config)] };
    })
    .addNode("tools", new ToolNode([readFileTool, reportTool]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => (state.messages.at(-1).tool_calls?.length ? "tools" : END), ["tools", END])
    .addConditionalEdges("tools", (state) => (state.messages.at(-1).name === "report_to_leader" ? END : "agent"), ["agent", END])
    .compile();

  // The team graph.
  const leaderModel = chat.bindTools([
    { name: "create_sub_agent", description: "Create a sub-agent from a registered role and give it a task.", schema: z.object({ role_id: z.enum(WORKER_ROLES), task: z.string() }) },
    {
      name: "send_message_to_agent",
      description: "Send a message to one of your sub-agents (it reads it before its next step).",
      schema: z.object({ agent_id: z.number().int(), content: z.string() }),
    },
  ]);
  const TeamState = Annotation.Root({
    ...MessagesAnnotation.spec,
    // Display name → { agentId, messages }: each worker's own history, for its follow-up.
    agents: Annotation({ reducer: (a, b) => ({ ...a, ...b }), default: () => ({}) }),
  });
  const leader = async (state, config) => {
    const system = new SystemMessage(`You are the Team Leader.\nConversation: ${conversationOf(config)}\nProject folder (the agents' workspace): ${project}`);
    return { messages: [await leaderModel.invoke([system, ...state.messages], config)] };
  };
  const team = (state) => {
    const calls = state.messages.at(-1).tool_calls;
    const replies = [];
    const sends = [];
    const agents = {};
    let count = Object.keys(state.agents).length;
    for (const call of calls) {
      if (call.name === "create_sub_agent") {
        const agentId = ++count;
        const name = `${call.args.role_id}_${agentId}`;
        const messages = [new HumanMessage(`来自 Team Leader 的任务发布\nid: task_${name}\n\n${call.args.task}`)];
        agents[name] = { agentId, messages };
        sends.push(new Send("worker", { name, agentId, messages }));
        replies.push(new ToolMessage({ tool_call_id: call.id, content: JSON.stringify({ agent_id: agentId, display_name: name, task_id: `task_${agentId}` }) }));
      } else if (call.name === "send_message_to_agent") {
        const entry = Object.entries(state.agents).find(([, a]) => a.agentId === call.args.agent_id);
        if (!entry) throw new Error(`no agent ${call.args.agent_id}`);
        const [name, { agentId, messages }] = entry;
        const id = `msg_tl_${String(agentId).padStart(3, "0")}`;
        sends.push(new Send("worker", { name, agentId, messages: [...messages, new HumanMessage(`来自 Team Leader 的消息\nid: ${id}\n\n${call.args.content}`)] }));
        replies.push(new ToolMessage({ tool_call_id: call.id, content: JSON.stringify({ delivered: true, message_id: id }) }));
      } else {
        throw new Error(`the leader called ${call.name}`);
      }
    }
    return new Command({ update: { messages: replies, agents }, goto: [...sends, "leader"] });
  };
  const worker = async (input, config) => {
    const out = await workerGraph.invoke({ messages: input.messages, name: input.name, agentId: input.agentId }, config);
    const added = out.messages.slice(input.messages.length);
    const update = { agents: { [input.name]: { agentId: input.agentId, messages: out.messages } } };
    const report = added.flatMap((m) => m.tool_calls ?? []).find((c) => c.name === "report_to_leader");
    if (!report) return update;
    const reportMessage = new HumanMessage(`来自 ${input.name} 的任务完成汇报\nid: out_${String(input.agentId).padStart(3, "0")}\n\n${report.args.summary}`);
    return new Command({ update: { ...update, messages: [reportMessage] }, goto: "leader" });
  };
  const graph = new StateGraph(TeamState)
    .addNode("leader", leader)
    .addNode("team", team, { ends: ["worker", "leader"] })
    .addNode("worker", worker, { ends: ["leader"] })
    .addEdge(START, "leader")
    .addConditionalEdges("leader", (state) => (state.messages.at(-1).tool_calls?.length ? "team" : END), ["team", END])
    .compile({ checkpointer: storage.checkpointer });

  /** One conversation on its own thread; resolves to the model calls it made. */
  async function runUser(conv) {
    const config = { configurable: { thread_id: conv }, streamMode: "messages", subgraphs: true, durability: "sync" };
    const stream = await graph.stream({ messages: [new HumanMessage(GOAL)] }, config);
    for await (const chunk of stream) void chunk;
    const { values } = await graph.getState({ configurable: { thread_id: conv } });
    const aiCount = (messages) => messages.filter((m) => m.getType() === "ai").length;
    const calls = aiCount(values.messages) + Object.values(values.agents).reduce((n, a) => n + aiCount(a.messages), 0);
    const last = values.messages.filter((m) => m.getType() === "ai").at(-1);
    if (!String(last?.content ?? "").includes(SUMMARY_MARK)) throw new Error(`LangGraph run ${conv} ended without a summary`);
    return calls;
  }
  return { runUser, close: storage.close };
}

/**
 * Forks the LangGraph peer (see the header) on the fake at `url`, packages from `dir`, with
 * `saver` "sqlite" or "postgres" (then on `databaseUrl`).
 */
export function startLangGraphPeer({ url, project, dir, saver, databaseUrl }) {
  const env = { ...process.env };
  // LangSmith tracing would send every run to LangChain's servers: off whatever the shell says.
  for (const key of Object.keys(env)) if (/^(LANGSMITH|LANGCHAIN)_/.test(key)) delete env[key];
  return forkPeer(fileURLToPath(import.meta.url), { url, project, dir, saver, databaseUrl }, env);
}

if (process.argv[2] === "--child") await servePeer(setup);

/**
 * Team-runtime figures: the real built server over HTTP on 127.0.0.1, its models pointed (through
 * `<ASTRION_HOME>/models.json`) at the tests' fake OpenAI-compatible server answering at zero
 * latency, scripted per conversation from what each request carries (the leader's requests offer
 * `create_sub_agent`; a sub-agent's system prompt names it and its conversation).
 *
 * Three measurements, one server:
 * 1. Orchestration overhead per model call. Per call, we take the gap between the moment the
 *    fake finished sending one streamed answer that asked for tool calls and the moment the next
 *    request of the same agent (same conversation, same leader or sub-agent) arrived. In that gap
 *    the server does everything it does between two model calls: parse the stream, save the
 *    assistant message and token usage, run the tools (list_files, list_agents, create_sub_agent),
 *    save their results and the agent's metadata, publish events, append the timeline, read the
 *    files back and build the next request. Only gaps after tool calls count: after a text answer
 *    an agent is idle until something wakes it, which is waiting, not overhead.
 * 2. The cost of a save as a leader conversation grows past 1,000 messages (three conversations
 *    grown one after another, their turns pooled per checkpoint): the fake leader
 *    answers `grow N` by calling `list_agents` until the conversation holds N messages (each call
 *    adds an assistant message and a tool result) and `ping` with a short text. Near 10, 100, 500
 *    and 1,000 messages we report the per-turn gap of method 1 for the list_agents calls around
 *    that size, the time the API takes to accept a person's message (202: it appends the message
 *    to messages.json and a line to timeline.jsonl), the time to read the conversation back, and
 *    the size of messages.json on disk.
 * 3. SSE delivery latency: 10 conversations, each a leader that creates 5 sub-agents which list
 *    files 3 times and report, all started at once, with 3 SSE viewers per conversation. Latency is
 *    the viewer's receive time minus `record.timestamp` of `timeline` events (stamped by the server
 *    when it builds the record, before its durable append to timeline.jsonl and its publication).
 *    Viewers run in this process, beside the fake model, so this process's own event-loop delay is
 *    part of the figure.
 */
import { statSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { finished, newConversation, post, signals, viewer, withTimeout } from "./conversation.mjs";
import { instrument, loadFakeOpenAI } from "./fake-model.mjs";
import { request, sleep, startServer, stats, tempDir, timed } from "./lib.mjs";

const TEAM_ROLES = ["researcher", "code-reviewer", "full-stack-engineer", "technical-writer", "test-engineer"];
const OVERHEAD_CONVERSATIONS = 5;
const OVERHEAD_AGENT_STEPS = 4;
const GROW_CHECKPOINTS = [10, 100, 500, 1000];
const GROW_WINDOW = 8;
/** Conversations grown one after another; a checkpoint's figures pool their turns. */
const GROW_REPEATS = 3;
/**
 * Messages of the "grow" conversation's leader, counted by the bench as they are made (a person's
 * message: 1; a leader answer with a tool call: 2, the call and its result; a text answer: 1). The
 * model only sees the context budget's share of a long history, and messages.json on disk follows
 * the step log in the background, so neither says how long the history is at a given call.
 * `rep`: which of the GROW_REPEATS conversations is growing.
 */
const growing = { count: 0, rep: 0 };
const PINGS = 5;
const TEAM_CONVERSATIONS = 10;
const TEAM_VIEWERS = 3;
const TEAM_AGENT_STEPS = 3;

// ------------------------------------------------------------------------------------------ fake

function messagesOf(body) {
  return Array.isArray(body.messages) ? body.messages : [];
}
function systemOf(body) {
  return String(messagesOf(body)[0]?.content ?? "");
}
function countCalls(body, name) {
  return messagesOf(body).reduce((n, m) => n + (m.tool_calls ?? []).filter((c) => c.function?.name === name).length, 0);
}
function reportsIn(body) {
  return messagesOf(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;
}

/** The script handler: decides each answer from the request and records who asked and what it got. */
function makeHandler({ fakeText, fakeToolCalls }, info, signal) {
  const tools = (calls) => fakeToolCalls(calls);
  const create = (role_id, i) => ({ name: "create_sub_agent", arguments: { role_id, task: `Survey the project, part ${i + 1}` } });
  return (body, callIndex) => {
    const system = systemOf(body);
    const conv = /Conversation: (\S+)/.exec(system)?.[1] ?? "unknown";
    const leader = JSON.stringify(body.tools ?? []).includes("create_sub_agent");
    const who = leader ? "leader" : (/You are: (\S+)/.exec(system)?.[1] ?? "agent");
    const msgs = messagesOf(body);
    const count = conv === "grow" ? growing.count : msgs.length - 1; // without the system message
    let script;
    if (leader && conv === "grow") {
      // The newest person message (the context budget may put an "omitted" placeholder after it).
      const lastUser = [...msgs].reverse().find((m) => m.role === "user" && !String(m.content ?? "").startsWith("["));
      const last = msgs[msgs.length - 1];
      const target = Number(/^grow (\d+)$/.exec(String(lastUser?.content ?? ""))?.[1] ?? 0);
      if (last?.role === "user" && lastUser.content === "ping") script = fakeText("pong");
      else if (target && count < target && countCalls(body, "list_agents") < 2000) script = tools([{ name: "list_agents", arguments: {} }]);
      else script = fakeText("grown");
    } else if (leader) {
      const [kind] = conv.split("-");
      const team = kind === "team" ? TEAM_ROLES : TEAM_ROLES.slice(0, 3);
      if (kind === "overhead" && countCalls(body, "list_agents") === 0) script = tools([{ name: "list_agents", arguments: {} }]);
      else if (countCalls(body, "create_sub_agent") === 0) script = tools(team.map(create));
      else if (reportsIn(body) >= team.length) {
        script = fakeText(`SUMMARY: all ${team.length} agents reported.`);
        signal.fire(`summary:${conv}`);
      } else script = fakeText("Waiting for the team's reports.");
    } else {
      const steps = conv.startsWith("team") ? TEAM_AGENT_STEPS : OVERHEAD_AGENT_STEPS;
      if (countCalls(body, "list_files") < steps) script = tools([{ name: "list_files", arguments: { path: "." } }]);
      else script = tools([{ name: "report_to_leader", arguments: { summary: `${who} listed the project ${steps} times; it holds README.md and src/.` } }]);
    }
    // The grown conversations share a title: each one's calls are paired with its own (the last
    // call in one's window must not be paired with the next conversation's first).
    const key = conv === "grow" ? `grow#${growing.rep}/${who}` : `${conv}/${who}`;
    info.set(callIndex, { conv, who, key, count, tools: Boolean(script.toolCalls?.length), name: script.toolCalls?.[0]?.name ?? null });
    if (leader && conv === "grow") growing.count += script.toolCalls?.length ? 2 : 1;
    if (conv === "grow" && !script.toolCalls?.length) signal.fire("grow:answered");
    return script;
  };
}

/**
 * Orchestration gaps (see the file comment): for each agent, the time from the end of a response
 * that asked for tool calls to the arrival of that agent's next request.
 */
function gaps(fake, info, filter = () => true) {
  const byKey = new Map();
  for (const r of fake.requests) {
    const i = info.get(r.callIndex);
    if (r.callIndex < 0 || !i || !filter(i)) continue;
    if (!byKey.has(i.key)) byKey.set(i.key, []);
    byKey.get(i.key).push({ ...i, arrivedAt: r.arrivedAt, completedAt: r.completedAt });
  }
  const out = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => a.arrivedAt - b.arrivedAt);
    for (let k = 1; k < list.length; k++) {
      const prev = list[k - 1];
      if (prev.tools && prev.completedAt !== undefined) out.push({ ...prev, gap: list[k].arrivedAt - prev.completedAt });
    }
  }
  return out;
}

/** Gap statistics overall and by the tool the previous answer called. */
function byTool(list) {
  const names = [...new Set(list.map((g) => g.name))];
  return { ...stats(list.map((g) => g.gap)), by_tool: Object.fromEntries(names.map((name) => [name, stats(list.filter((g) => g.name === name).map((g) => g.gap))])) };
}

/** Time the fake spent on each call: request body read → last byte of the answer written. */
function insideFake(fake, info, filter) {
  return fake.requests
    .filter((r) => r.callIndex >= 0 && r.completedAt !== undefined && info.has(r.callIndex) && filter(info.get(r.callIndex)))
    .map((r) => r.completedAt - r.arrivedAt);
}

const round = (x) => +x.toFixed(2);

// ------------------------------------------------------------------------------------- 1. overhead

async function measureOverhead({ port, project, fake, info, signal }) {
  // overhead-0 warms the routes and the runtime's modules; it is not counted.
  for (let n = 0; n <= OVERHEAD_CONVERSATIONS; n++) {
    const title = `overhead-${n}`;
    const id = await newConversation(port, title, project);
    await post(port, id, "Survey the project with a small team.");
    await withTimeout(signal.wait(`summary:${title}`), 60_000, title);
    await finished(port, id, { agents: 3, marker: "SUMMARY" });
  }
  const counted = (i) => i.conv.startsWith("overhead-") && i.conv !== "overhead-0";
  const quiet = gaps(fake, info, counted);
  return {
    method:
      "Per model call: gap between the end of the fake model's streamed answer that asked for tool calls and the arrival of the same agent's next request " +
      "(the server parses the stream, saves the assistant message and usage, runs the tools, saves their results and metadata, publishes events, and builds the next request). " +
      "Gaps after text answers (agent idle until woken) are not counted. Fake model at zero latency, on loopback.",
    workload: `${OVERHEAD_CONVERSATIONS} conversations one after another; leader: list_agents, then create_sub_agent x3, then text; each sub-agent: list_files x${OVERHEAD_AGENT_STEPS}, report_to_leader`,
    all_ms: stats(quiet.map((g) => g.gap)),
    leader_ms: stats(quiet.filter((g) => g.who === "leader").map((g) => g.gap)),
    sub_agent_ms: stats(quiet.filter((g) => g.who !== "leader").map((g) => g.gap)),
    by_tool_ms: byTool(quiet).by_tool,
    inside_fake_per_call_ms: stats(insideFake(fake, info, counted)),
  };
}

// ---------------------------------------------------------------------------------------- 2. grow

async function measureGrowth({ port, project, home, fake, info, signal, viewers }) {
  const samples = Object.fromEntries(GROW_CHECKPOINTS.map((c) => [c, { post202: [], reads: [], count: 0, bytes: 0, fileBytes: 0 }]));
  const started = Date.now();
  // The same growth, in GROW_REPEATS conversations one after another (all titled "grow"), so each
  // checkpoint's medians pool GROW_REPEATS times as many turns.
  for (let rep = 0; rep < GROW_REPEATS; rep++) {
    growing.count = 0;
    growing.rep = rep;
    const id = await newConversation(port, "grow", project);
    const watch = viewer(port, id);
    viewers.push(watch);
    await watch.until((s) => s.snapshot, 30_000, "grow snapshot");
    const messagesFile = path.join(home, "conversations", id, "messages.json");
    /** Sends a person message, waits until the leader has answered and gone idle; returns the POST's ms. */
    const turn = async (content) => {
      const before = watch.state.busyFalse;
      signal.reset("grow:answered");
      const answered = signal.wait("grow:answered");
      growing.count += 1; // the person's message, saved before the 202
      const ms = await post(port, id, content);
      await withTimeout(answered, 300_000, `answer to ${content}`);
      await watch.until((s) => s.busyFalse > before, 30_000, `leader idle after ${content}`);
      return ms;
    };
    for (const c of GROW_CHECKPOINTS) {
      const at = samples[c];
      await turn(`grow ${c + GROW_WINDOW}`);
      for (let k = 0; k < PINGS; k++) at.post202.push(await turn("ping"));
      for (let k = 0; k < 5; k++) {
        const { ms, result } = await timed(() => request(port, "GET", `/api/conversations/${id}/messages`));
        at.reads.push(ms);
        at.count = result.json.messages.length;
        at.bytes = result.bytes;
      }
      at.fileBytes = statSync(messagesFile).size;
    }
    watch.close();
  }
  const checkpoints = {};
  for (const c of GROW_CHECKPOINTS) {
    const at = samples[c];
    const window = gaps(fake, info, (i) => i.conv === "grow" && i.name === "list_agents" && i.count >= c - GROW_WINDOW && i.count < c + GROW_WINDOW);
    checkpoints[`${c}_messages`] = {
      messages_after_checkpoint: at.count,
      messages_json_bytes: at.fileBytes,
      turn_ms: { messages_from: Math.max(0, c - GROW_WINDOW), messages_to: c + GROW_WINDOW - 1, ...stats(window.map((g) => g.gap)) },
      post_message_202_ms: stats(at.post202),
      get_messages_ms: { response_bytes: at.bytes, ...stats(at.reads) },
    };
  }
  return {
    method:
      `${GROW_REPEATS} leader conversations, one after another, each grown by the fake leader calling list_agents in a loop (each call adds 2 messages; a checkpoint's figures pool the ${GROW_REPEATS}). turn_ms: for the list_agents calls whose request held ` +
      `${GROW_WINDOW} messages either side of the checkpoint, the gap from the end of the fake's answer to the leader's next request (saves the assistant message and the usage, ` +
      `runs list_agents, saves the tool result, reads messages.json back, builds the next request). post_message_202_ms: ${PINGS} person messages at that size, time until 202 ` +
      `(appends to messages.json and timeline.jsonl), each sent once the leader had answered the previous one and gone idle. get_messages_ms: reading the conversation back (5 times).`,
    growth_seconds: round((Date.now() - started) / 1000),
    checkpoints,
    at_1000_vs_10_messages: {
      leader_turn_median_ms: [checkpoints["10_messages"].turn_ms.median, checkpoints["1000_messages"].turn_ms.median],
      leader_turn_ratio: round(checkpoints["1000_messages"].turn_ms.median / checkpoints["10_messages"].turn_ms.median),
      post_message_202_median_ms: [checkpoints["10_messages"].post_message_202_ms.median, checkpoints["1000_messages"].post_message_202_ms.median],
      post_message_202_ratio: round(checkpoints["1000_messages"].post_message_202_ms.median / checkpoints["10_messages"].post_message_202_ms.median),
    },
  };
}

// ----------------------------------------------------------------------------------------- 3. SSE

async function measureSse({ port, project, fake, info, signal, viewers }) {
  const teams = [];
  for (let n = 1; n <= TEAM_CONVERSATIONS; n++) {
    const title = `team-${n}`;
    const id = await newConversation(port, title, project);
    const vs = Array.from({ length: TEAM_VIEWERS }, () => viewer(port, id));
    viewers.push(...vs);
    teams.push({ title, id, viewers: vs });
  }
  await Promise.all(teams.flatMap((t) => t.viewers.map((v) => v.until((s) => s.snapshot, 30_000, `snapshot of ${t.title}`))));
  const started = Date.now();
  await Promise.all(teams.map((t) => post(port, t.id, "Survey the project with a team of five.")));
  await withTimeout(Promise.all(teams.map((t) => signal.wait(`summary:${t.title}`))), 180_000, "10 team summaries");
  for (const t of teams) t.result = await finished(port, t.id, { agents: TEAM_ROLES.length, marker: "SUMMARY" });
  const seconds = (Date.now() - started) / 1000;
  await sleep(500); // trailing events (phase, leader_busy) reach every viewer
  for (const t of teams) for (const v of t.viewers) v.close();
  const all = teams.flatMap((t) => t.viewers.map((v) => v.state));
  const mismatched = teams
    .filter((t) => {
      const [first, ...rest] = t.viewers.map((v) => v.state.ids.join(","));
      return rest.some((x) => x !== first);
    })
    .map((t) => ({ title: t.title, live_events: t.viewers.map((v) => v.state.live) }));
  return {
    method:
      `${TEAM_CONVERSATIONS} conversations started together, each: leader creates ${TEAM_ROLES.length} sub-agents (one response), each sub-agent calls list_files ${TEAM_AGENT_STEPS} times ` +
      `then report_to_leader, leader summarizes after all reports. ${TEAM_VIEWERS} SSE viewers per conversation (node:http, connected and snapshotted before the goal is sent). ` +
      "Latency = viewer receive time - record.timestamp of every `timeline` event (the server stamps the record, appends it durably to timeline.jsonl, then publishes). " +
      "Viewers share this process with the fake model. Events counted per viewer exclude the first (snapshot) event; viewers agree when their event id sequences are identical.",
    conversations: TEAM_CONVERSATIONS,
    sub_agents_per_conversation: TEAM_ROLES.length,
    viewers_per_conversation: TEAM_VIEWERS,
    wall_seconds: round(seconds),
    model_calls: [...info.values()].filter((i) => i.conv.startsWith("team-")).length,
    timeline_latency_ms: stats(all.flatMap((s) => s.latencies)),
    events_per_viewer: stats(all.map((s) => s.live)),
    timeline_events_per_viewer: stats(all.map((s) => s.timeline)),
    all_viewers_of_a_conversation_got_the_same_events: mismatched.length === 0,
    mismatched_conversations: mismatched,
    viewers_dropped_for_overflow: all.filter((s) => s.overflow).length,
    viewer_errors: all.filter((s) => s.error).length,
    agent_statuses: [...new Set(teams.flatMap((t) => t.result.agents))],
    orchestration_overhead_under_this_load_ms: byTool(gaps(fake, info, (i) => i.conv.startsWith("team-"))),
  };
}

// ------------------------------------------------------------------------------------------ main

/** The measurements of this file, selectable from `npm run bench -- <part>`. */
export const RUNTIME_PARTS = ["overhead", "grow", "sse"];

/** Runs the runtime measurements (`parts`, all by default) and returns their figures. */
export async function benchRuntime(parts = RUNTIME_PARTS) {
  const PARTS = new Set(parts);
  const { mod, cleanup } = await loadFakeOpenAI();
  const home = tempDir("astrion-bench-rt-");
  const project = tempDir("astrion-bench-rt-project-");
  mkdirSync(path.join(project, "src"));
  writeFileSync(path.join(project, "README.md"), "# Demo\n\nA small project for the benchmark.\n");
  for (let i = 0; i < 5; i++) writeFileSync(path.join(project, "src", `module-${i}.ts`), `export const value${i} = ${i};\n`);

  const info = new Map();
  const signal = signals();
  const viewers = [];
  let fake;
  let server;
  try {
    fake = await mod.startFakeOpenAI({ script: makeHandler(mod, info, signal) });
    // The fake keeps every parsed request body; drop each once answered so 1,000-message bodies do not pile up.
    instrument(fake, { dropBodies: true });
    writeFileSync(
      path.join(home, "models.json"),
      JSON.stringify({
        default: "fake",
        models: {
          offline: { provider: "offline", model: "astrion-offline" },
          fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake", max_concurrency: 64 },
        },
      }),
    );
    // All 30 SSE viewers come from this one address: the per-client stream cap (20 by default) is raised for them.
    server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-bench", ASTRION_LEADER_BATCH_MS: "0", ASTRION_MAX_CALLS_PER_TASK: "2000", ASTRION_SSE_MAX_PER_CLIENT: "100" } });
    const ctx = { port: server.port, project, home, fake, info, signal, viewers };
    const result = {};
    if (PARTS.has("overhead")) result.orchestration_overhead_per_model_call = await measureOverhead(ctx);
    if (PARTS.has("grow")) result.save_as_conversation_grows = await measureGrowth(ctx);
    if (PARTS.has("sse")) result.sse_delivery_10x5x3 = await measureSse(ctx);
    return result;
  } catch (error) {
    if (server) error.message += `\n--- server output (tail) ---\n${server.output().slice(-4000)}`;
    throw error;
  } finally {
    for (const v of viewers) v.close();
    await server?.stop();
    await fake?.close();
    cleanup();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}

/**
 * Driving conversations of the built server from the bench: create one, post a person's message,
 * watch its event stream like a browser, wait until the team is done; and the server process's
 * CPU time and memory from /proc. Shared by bench/runtime.mjs and bench/engine.mjs.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { nowMs, request, sleep, timed } from "./lib.mjs";

/** A promise per name, resolved by the fake's handler when a scripted point is reached. */
export function signals() {
  const map = new Map();
  const get = (name) => {
    if (!map.has(name)) {
      let resolve;
      const promise = new Promise((r) => (resolve = r));
      map.set(name, { promise, resolve });
    }
    return map.get(name);
  };
  return { fire: (name) => get(name).resolve(), wait: (name) => get(name).promise, reset: (name) => map.delete(name) };
}

/** `promise`, or a rejection naming `what` after `ms`. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * One viewer of a conversation's event stream (node:http, `data:` lines parsed as JSON), as a
 * browser tab holds it. `state` counts what arrived; `leaderTexts` holds the leader's text
 * messages with their receive times and `agentTexts` the sub-agents' (an assistant message with
 * text and no tool call); `busyFalse` counts `leader_busy: false` events and `busyFalseAt` is
 * when the latest arrived; `deltas` counts streamed-text events, `bytes` what the stream carried
 * after its snapshot, `reads` the socket reads that brought it.
 */
export function viewer(port, convId) {
  const state = {
    snapshot: false,
    live: 0,
    ids: [],
    timeline: 0,
    latencies: [],
    busyFalse: 0,
    busyFalseAt: 0,
    leaderTexts: [],
    agentTexts: [],
    deltas: 0,
    bytes: 0,
    reads: 0,
    overflow: false,
    ended: false,
    error: null,
  };
  let onChange = () => {};
  const req = http.request(
    { host: "127.0.0.1", port, path: `/api/conversations/${convId}/events`, headers: { accept: "text/event-stream" }, agent: false },
    (res) => {
      if (res.statusCode !== 200) state.error = `status ${res.statusCode}`;
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk) => {
        const received = nowMs();
        if (state.snapshot) {
          state.bytes += Buffer.byteLength(chunk);
          state.reads++;
        }
        buffer += chunk;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          // Presence frames (who has the conversation open) are not the runtime's events.
          if (block.startsWith("event: presence\n")) continue;
          let id;
          const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
            else if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith(": overflow") || line === ":overflow") state.overflow = true;
          }
          if (!data.length) continue;
          const event = JSON.parse(data.join("\n"));
          if (event.type === "snapshot") {
            state.snapshot = true;
          } else {
            state.live++;
            state.ids.push(id);
            if (event.type === "timeline") {
              state.timeline++;
              // The server stamps records by the wall clock: compare with the wall clock (the monotonic one
              // drifts from it on this VM, by 0.8 s over a bench run once).
              state.latencies.push(Date.now() - Date.parse(event.record.timestamp));
            }
            if (event.type === "leader_busy" && event.busy === false) {
              state.busyFalse++;
              state.busyFalseAt = received;
            }
            if (event.type === "delta") state.deltas++;
            if (event.type === "message" && event.message?.role === "assistant" && typeof event.message.content === "string") {
              if (event.agent_id === null) state.leaderTexts.push({ content: event.message.content, at: received });
              else if (event.message.content && !event.message.tool_calls?.length) state.agentTexts.push({ agent_id: event.agent_id, at: received });
            }
          }
        }
        onChange();
      });
      res.on("end", () => (state.ended = true));
      res.on("error", () => (state.ended = true));
    },
  );
  req.on("error", (e) => (state.error = String(e)));
  req.end();
  const until = (check, ms, what) =>
    withTimeout(
      new Promise((resolve) => {
        const look = () => {
          if (check(state)) {
            onChange = () => {};
            resolve();
          }
        };
        onChange = look;
        look();
      }),
      ms,
      what,
    );
  return { state, until, close: () => req.destroy() };
}

/** Creates a conversation over HTTP; returns its id. */
export async function newConversation(port, title, project) {
  const r = await request(port, "POST", "/api/conversations", { title, project_path: project });
  if (r.status !== 201) throw new Error(`create conversation failed: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json.conversation.id;
}

/** Posts a person's message; returns the milliseconds until the 202. */
export async function post(port, id, content) {
  const r = await timed(() => request(port, "POST", `/api/conversations/${id}/messages`, { content }));
  if (r.result.status !== 202) throw new Error(`post message failed: ${r.result.status} ${JSON.stringify(r.result.json)}`);
  return r.ms;
}

/** The end of a run: the leader's last message is a plain assistant answer and no agent runs or waits. */
export async function finished(port, id, { agents: expected = 0, marker } = {}) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [m, a] = await Promise.all([request(port, "GET", `/api/conversations/${id}/messages`), request(port, "GET", `/api/conversations/${id}/agents`)]);
    const last = m.json?.messages?.at(-1);
    const agents = a.json?.agents ?? [];
    const done =
      last?.role === "assistant" &&
      !last.tool_calls?.length &&
      (!marker || String(last.content ?? "").includes(marker)) &&
      agents.length >= expected &&
      !agents.some((x) => ["running", "waiting"].includes(x.metadata?.status));
    if (done) return { messages: m.json.messages.length, agents: agents.map((x) => x.metadata.status) };
    if (Date.now() > deadline) throw new Error(`conversation ${id} did not finish: last=${JSON.stringify(last)?.slice(0, 300)} agents=${agents.map((x) => x.metadata?.status)}`);
    await sleep(100);
  }
}

let clockTicks;
/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`, 100 on Linux). */
function ticksPerSecond() {
  if (clockTicks === undefined) {
    const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
    clockTicks = Number(out.stdout?.trim()) || 100;
  }
  return clockTicks;
}

/** CPU time (user + system) the process `pid` has used, in milliseconds (from /proc/<pid>/stat; tick resolution). */
export function processCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
}

/** CPU time (user + system) of the main thread of `pid` (the event loop, JavaScript), in ms (/proc/<pid>/task/<pid>/stat). */
export function mainThreadCpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
}

/** Resident memory of `pid` now and at its peak, in MB (VmRSS and VmHWM of /proc/<pid>/status). */
export function processMemoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss_mb: +(kb("VmRSS") / 1024).toFixed(1), peak_rss_mb: +(kb("VmHWM") / 1024).toFixed(1) };
}

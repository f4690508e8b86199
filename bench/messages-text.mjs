/**
 * CPU of an open conversation's messages.json rewrite, as the UTF-8 bytes a save writes
 * (lib/store/messages-json.ts against the whole-file toPythonJson it replaced), in process: a
 * sub-agent's file grows by an assistant message with a tool call and a tool result of ~3 KB per
 * model call, and is rewritten after every call (the seed writer rewrites it at most every
 * 100 ms; at a fast model that is every few calls). Prints JSON: ms per rewrite, median of repetitions, at each file size.
 *
 * `node bench/messages-text.mjs [calls] [repetitions]` (default 100, 15).
 */
import { importTsGraph } from "./ts-module.mjs";

const CALLS = Number(process.argv[2] ?? 100);
const REPS = Number(process.argv[3] ?? 15);
const { mods, cleanup } = await importTsGraph(["lib/store/json.ts", "lib/store/messages-json.ts"]);
const [{ toPythonJson }, { MessagesFileText }] = mods;

let n = 0;
const words = (count) => Array.from({ length: count }, (_, i) => `word${(i * 7919 + n) % 1000}`).join(" ");
function call() {
  n++;
  const id = `call_${n}`;
  return [
    { role: "assistant", content: null, message_id: `msg_${n}a`, tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${n}.ts` }) } }], metadata: { message_source: "sub_agent", visibility: "hidden", agent_id: 1, trace_id: `t${n}` } },
    { role: "tool", content: words(400), message_id: `msg_${n}t`, tool_call_id: id, metadata: { message_source: "system", visibility: "hidden", created_at: 1752251700 + n } },
  ];
}

/** ms per rewrite over a file growing call by call, the writer given `write`. */
function run(write) {
  n = 0;
  // Made before the clock: only the rewrites are timed.
  const made = Array.from({ length: CALLS }, call);
  let file = { agent_id: 1, role_id: "researcher", display_name: "Researcher", created_at: "2026-01-01T00:00:00", updated_at: "2026-01-01T00:00:00", messages: [] };
  let last = Buffer.alloc(0);
  const started = process.cpuUsage();
  for (let k = 0; k < CALLS; k++) {
    file = { ...file, updated_at: `2026-01-01T00:00:${String(k % 60).padStart(2, "0")}`, messages: [...file.messages, ...made[k]] };
    last = write(file);
  }
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000 / CALLS, last };
}

const results = { whole_file: [], kept_messages: [] };
let finalBytes = 0;
try {
  for (let rep = 0; rep <= REPS; rep++) {
    const writer = new MessagesFileText();
    const a = run((f) => Buffer.from(toPythonJson(f), "utf8"));
    const b = run((f) => writer.bytes(f));
    if (!a.last.equals(b.last)) throw new Error("the two writers disagree");
    finalBytes = a.last.length;
    // The first repetition warms the JIT.
    if (rep > 0) {
      results.whole_file.push(a.ms);
      results.kept_messages.push(b.ms);
    }
  }
} finally {
  cleanup();
}
const median = (xs) => +[...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)].toFixed(4);
console.log(JSON.stringify({ calls: CALLS, final_file_kb: +(finalBytes / 1024).toFixed(0), reps: REPS, ms_per_rewrite: { whole_file: median(results.whole_file), kept_messages: median(results.kept_messages) } }));

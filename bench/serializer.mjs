/**
 * The Python-style JSON writer of lib/store/json.ts against `JSON.stringify` on the same data, as
 * text (`toPythonJson`) and as the UTF-8 bytes a save writes (`toPythonJsonBytes`, against
 * `Buffer.from(JSON.stringify(…))`): a leader messages.json of 1,000 messages shaped as the
 * runtime writes them (person messages, tool calls and results, sub-agent reports, in Chinese
 * and English with role-file text from the corpus, trace ids). The runtime puts no epoch-second
 * floats in a leader file, so the same file is also measured with one in every assistant message (250)
 * (`usage.created_at`, written `1752251700.0`): the writer's slower path, which rewrites those
 * numbers in the text. Samples alternate between the writers so load on the machine hits them
 * alike. The reference writer (`toPythonJsonReference`) is timed apart (its garbage would
 * otherwise land in the others' samples), and every output is checked byte-identical to it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, stats } from "./lib.mjs";
import { importTsModule } from "./ts-module.mjs";

const MESSAGES = 1000;
const SAMPLES = 60;
const REFERENCE_SAMPLES = 15;

/** Texts of real role files: the corpus when present, else the product's roles. */
function texts() {
  const corpus = path.resolve(ROOT, "..", "shared", "corpus", "roles");
  const folder = existsSync(corpus) ? corpus : path.join(ROOT, "agents");
  return readdirSync(folder)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => readFileSync(path.join(folder, f), "utf8"));
}

/** A leader messages.json of `n` messages; with `floats`, an epoch-second float in every assistant message. */
function leaderFile(n, floats) {
  const bodies = texts();
  const trace = (i) => `tr_${(i * 2654435761) % 4294967296}`.padEnd(20, "0");
  const messages = [];
  for (let i = 0; messages.length < n; i++) {
    const body = bodies[i % bodies.length];
    const t = trace(Math.floor(i / 4));
    messages.push({ role: "user", content: `请帮我检查这个项目的结构，第 ${i} 轮。\n${body.slice(0, 300)}`, message_id: `msg_user_${i}`, metadata: { message_source: "user", visibility: "chat", starts_work: true, trace_id: t, turn_id: `tu_${i}` } });
    messages.push({
      role: "assistant",
      content: null,
      message_id: `msg_tl_${i}`,
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "create_sub_agent", arguments: JSON.stringify({ role_id: "researcher", task: body.slice(0, 400) }) } }],
      metadata: {
        message_source: "leader",
        visibility: "chat",
        starts_work: false,
        trace_id: t,
        usage: { prompt_tokens: 2000 + i, completion_tokens: 120, ...(floats ? { created_at: 1752251700 + i } : {}) },
      },
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: JSON.stringify({ agent_id: i + 1, display_name: `Researcher_${i + 1}`, status: "running" }), message_id: `msg_tool_${i}`, metadata: { trace_id: t } });
    messages.push({
      role: "user",
      content: `来自 Researcher_${i + 1} 的任务完成汇报\nid: out_res_${i}\n\n${body.slice(300, 2300)}`,
      message_id: `msg_report_${i}`,
      metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: i + 1, trace_id: t },
    });
  }
  messages.length = n;
  return {
    id: "conv_20260711_210000_001",
    title: "多智能体任务：设计前端",
    created_at: "2026-07-11T21:00:00",
    updated_at: "2026-07-11T23:59:00",
    messages,
    metadata: { pending_inbox: [{ id: "out_res_x", content: "来自 Researcher_9 的任务完成汇报", created_at: "2026-07-11T23:58:00.000Z" }] },
    token_statistics: { prompt_tokens: 2_345_678, completion_tokens: 98_765, total_tokens: 2_444_443, calls: 250 },
  };
}

/** Times the writers on `value`: medians and ratios, and whether the output equals the reference's. */
function measure({ toPythonJson, toPythonJsonBytes, toPythonJsonReference }, value) {
  const ours = toPythonJson(value);
  const writers = {
    to_python_json: () => toPythonJson(value),
    json_stringify_indent_2: () => JSON.stringify(value, null, 2),
    json_stringify: () => JSON.stringify(value),
    to_python_json_bytes: () => toPythonJsonBytes(value),
    json_stringify_indent_2_bytes: () => Buffer.from(JSON.stringify(value, null, 2), "utf8"),
  };
  const time = (w) => {
    const t = performance.now();
    const out = w();
    // Flatten a string (a rope until then), as writing it to a file would.
    if (typeof out === "string") out.charCodeAt(out.length >> 1);
    return performance.now() - t;
  };
  const samples = Object.fromEntries(Object.keys(writers).map((k) => [k, []]));
  for (let k = 0; k < 5; k++) for (const w of Object.values(writers)) w();
  for (let k = 0; k < SAMPLES; k++) for (const [name, w] of Object.entries(writers)) samples[name].push(time(w));
  const reference = () => toPythonJsonReference(value);
  const identical = ours === reference() && toPythonJsonBytes(value).equals(Buffer.from(ours, "utf8"));
  samples.reference_writer = Array.from({ length: REFERENCE_SAMPLES }, () => time(reference));
  const ms = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
  const ratio = (a, b) => +(ms[a].median / ms[b].median).toFixed(2);
  return {
    bytes: Buffer.byteLength(ours),
    identical_to_reference: identical,
    ms,
    to_python_json_vs_json_stringify_indent_2: ratio("to_python_json", "json_stringify_indent_2"),
    to_python_json_vs_json_stringify: ratio("to_python_json", "json_stringify"),
    to_python_json_bytes_vs_json_stringify_indent_2_bytes: ratio("to_python_json_bytes", "json_stringify_indent_2_bytes"),
    reference_vs_json_stringify_indent_2: ratio("reference_writer", "json_stringify_indent_2"),
  };
}

/** Runs the serializer micro-benchmark and returns its figures. */
export async function benchSerializer() {
  const { mod, cleanup } = await importTsModule("lib/store/json.ts");
  try {
    return {
      serializer_1000_messages: {
        method:
          `${SAMPLES} samples per writer, writers alternating, after 5 warm-up rounds (reference writer: ${REFERENCE_SAMPLES} samples apart); ` +
          `each sample serializes a ${MESSAGES}-message leader messages.json and flattens the string (the *_bytes writers: to UTF-8, what a save writes).`,
        as_the_runtime_writes_it: measure(mod, leaderFile(MESSAGES, false)),
        with_250_epoch_second_floats: measure(mod, leaderFile(MESSAGES, true)),
      },
    };
  } finally {
    cleanup();
  }
}

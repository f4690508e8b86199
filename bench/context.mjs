/**
 * The context of one model call as the history grows (pure, in this process; no server): what the
 * leader's call site computes before each call — `conversationGoal`, `collectPromotions` and
 * `buildModelInput` with the default budgets — on a leader history of 10, 1,000 and 10,000
 * messages.
 * - from scratch: the build as it was before `ContextWindow` (test/helpers/context/from-scratch.ts,
 *   kept as the tests' oracle): every call pairs, counts and fills over the whole history;
 * - incremental: the app's build, the history's window warm;
 * - cold: the app's first call on the whole history (a window made from nothing: every message
 *   taken in once).
 * Before each timed call one message is appended (a new array of the same message objects, as
 * the store hands it out), so both builds count one new message per call. Figures: the whole
 * call site, and `buildModelInput` alone.
 * Every history is shaped like a leader's: a person's request, calls to `create_sub_agent` and
 * `read_file` with their results, sub-agents' reports (some with a `CONCLUSION:` line) and
 * assistant texts, in Chinese and English. The incremental output is checked byte-identical to
 * the from-scratch one on the last history of each size.
 */
import { importTsGraph } from "./ts-module.mjs";

const SIZES = [10, 1000, 10000];
const INCREMENTAL_SAMPLES = 100;
const SCRATCH_SAMPLES = { 10: 40, 1000: 10, 10000: 3 };

/** Median, p95 and max of samples in milliseconds, to the microsecond. */
function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const r = (x) => +x.toFixed(3);
  return { n: s.length, median: r(q(0.5)), p95: r(q(0.95)), max: r(s[s.length - 1]) };
}

/** The `i`-th message of a leader history (deterministic). */
function message(i) {
  const turn = Math.floor(i / 6);
  const text = (n, tag) => Array.from({ length: n }, (_, k) => `${tag}${(k * 7 + turn) % 97}`).join(" ");
  switch (i % 6) {
    case 0:
      return {
        role: "assistant",
        content: null,
        message_id: `msg_tl_${i}`,
        tool_calls: [{ id: `call_${i}`, type: "function", function: { name: turn % 2 ? "read_file" : "create_sub_agent", arguments: JSON.stringify({ path: `src/module_${turn}.ts`, role_id: "researcher", task: `检查第 ${turn} 个模块 ${text(20, "t")}` }) } }],
      };
    case 1:
      return { role: "tool", tool_call_id: `call_${i - 1}`, content: `// file ${turn}\n${text(150 + (turn % 5) * 60, "line")}`, message_id: `msg_tool_${i}` };
    case 2:
      return { role: "user", content: `来自 Researcher_${turn} 的任务完成汇报\nid: out_res_${turn}\n\n${text(80, "found")}${turn % 3 ? "" : `\nCONCLUSION: module ${turn} is safe`}`, message_id: `msg_report_${i}`, metadata: { message_source: "sub_agent" } };
    case 3:
      return { role: "assistant", content: `Turn ${turn}: ${text(40, "plan")}`, message_id: `msg_tl_${i}` };
    case 4:
      return { role: "assistant", content: null, message_id: `msg_tl_${i}`, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "list_agents", arguments: "{}" } }] };
    default:
      return { role: "tool", tool_call_id: `call_${i - 1}`, content: JSON.stringify({ agents: [{ agent_id: turn, status: "running" }] }), message_id: `msg_tool_${i}` };
  }
}

function history(n) {
  return [{ role: "user", content: "请审计这个项目的解析器，并找出登录问题。", message_id: "msg_user_0", metadata: { message_source: "user" } }, ...Array.from({ length: n - 1 }, (_, i) => message(i))];
}

/**
 * What the leader computes before a model call, with `lib` the app's functions or the
 * from-scratch ones: the milliseconds of the whole and of `buildModelInput` alone, and its result.
 */
function leaderCall(lib, messages) {
  const t0 = performance.now();
  const goal = lib.goal(messages) ?? "untitled";
  const promoted = lib.promotions(messages);
  const t1 = performance.now();
  const result = lib.build({ kind: "leader", system: "You are the Team Leader.", messages, facts: { project_path: "/work/project", goal }, promoted });
  const t2 = performance.now();
  return { ms: t2 - t0, buildMs: t2 - t1, result };
}

/** `samples` calls, each after one more message; their timings and the last result. */
function grow(lib, start, size, samples) {
  let messages = start;
  const ms = [];
  const buildMs = [];
  let last;
  for (let k = 0; k < samples; k++) {
    messages = [...messages, message(size - 1 + k)];
    last = leaderCall(lib, messages);
    ms.push(last.ms);
    buildMs.push(last.buildMs);
  }
  return { ms, buildMs, last: last.result, messages };
}

/** Runs the context part and returns its figures. */
export async function benchContext() {
  const { mods, cleanup } = await importTsGraph(["lib/context/index.ts", "test/helpers/context/from-scratch.ts"]);
  try {
    const [app, oracle] = mods;
    const incremental = { build: app.buildModelInput, goal: app.conversationGoal, promotions: app.collectPromotions };
    const scratch = { build: oracle.buildModelInputFromScratch, goal: oracle.conversationGoalFromScratch, promotions: oracle.collectPromotionsFromScratch };
    const out = {};
    for (const size of SIZES) {
      console.error(`context: ${size} messages`);
      const base = history(size);
      // first, so its texts are not yet in the per-text count cache; a copy of the history (other
      // message objects) gets a window of its own, made from nothing
      const cold = leaderCall(incremental, structuredClone(base)).ms;
      const fromScratch = grow(scratch, base, size, SCRATCH_SAMPLES[size]);
      leaderCall(incremental, base);
      const ours = grow(incremental, base, size, INCREMENTAL_SAMPLES);
      out[`messages_${size}`] = {
        build_model_input_ms: { from_scratch: summary(fromScratch.buildMs), incremental: summary(ours.buildMs) },
        with_goal_and_promotions_ms: { from_scratch: summary(fromScratch.ms), incremental: summary(ours.ms) },
        cold_ms: +cold.toFixed(3),
        identical_to_from_scratch: JSON.stringify(ours.last) === JSON.stringify(leaderCall(scratch, ours.messages).result),
      };
    }
    return {
      context_build: {
        method:
          "conversationGoal + collectPromotions + buildModelInput (default budgets) as the leader calls them, in this process. " +
          `One message appended before each call. from_scratch: the pre-ContextWindow build (test/helpers/context/from-scratch.ts), ${Object.values(SCRATCH_SAMPLES).join("/")} calls; ` +
          `incremental: the app's build, ${INCREMENTAL_SAMPLES} calls (warm window); cold_ms: the app's first call on a copy of the history.`,
        ...out,
      },
    };
  } finally {
    cleanup();
  }
}

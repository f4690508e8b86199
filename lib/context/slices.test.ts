import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/models/types";
import { formatAgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { PREVIEW_CHARS, SliceReportSchema, type SliceReport } from "./report";
import { buildModelInput, conversationGoal, placeholderText, type BuildModelInputOptions } from "./slices";
import { countTokens, messageTokens } from "./tokens";
import { rng } from "@/test/helpers/rng";

// ------------------------------------------------------------------ helpers


function words(n: number, tag = "w"): string {
  return Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
}

let nextId = 0;
const id = (p: string) => `${p}_${++nextId}`;

const person = (content: string): Message => ({ role: "user", content, message_id: id("msg_user"), metadata: { message_source: "user" } });
const report = (agent: string, body: string): Message => ({
  role: "user",
  content: formatAgentMessage("report", agent, id("out"), body),
  message_id: id("msg_user"),
  metadata: { message_source: "sub_agent" },
});
const task = (body: string): Message => ({ role: "user", content: formatAgentMessage("task", "Team Leader", id("task"), body), message_id: id("msg_user"), metadata: { message_source: "leader" } });
const teammate = (body: string): Message => ({ role: "user", content: formatAgentMessage("message", "Coder_2", id("msg_c"), body), message_id: id("msg_user"), metadata: { message_source: "sub_agent" } });
const say = (content: string): Message => ({ role: "assistant", content, message_id: id("msg_assistant") });

/** An assistant message calling `n` tools and their results (each `resultWords` long). */
function toolTurn(n: number, resultWords: number, name = "read_file"): Message[] {
  const calls = Array.from({ length: n }, () => ({ id: id("call"), type: "function" as const, function: { name, arguments: JSON.stringify({ path: `src/${nextId}.ts` }) } }));
  return [
    { role: "assistant", content: null, tool_calls: calls, message_id: id("msg_assistant") },
    ...calls.map((c): Message => ({ role: "tool", tool_call_id: c.id, content: words(resultWords, "r"), message_id: id("msg_tool") })),
  ];
}

const facts = { project_path: "/work/project", goal: "Find and fix the login bug" };

function build(messages: Message[], extra: Partial<BuildModelInputOptions> = {}) {
  return buildModelInput({ kind: "leader", system: "You are the Team Leader.", messages, facts, ...extra });
}

/** The OpenAI rules the sent chat must follow. */
function assertValidChat(sent: ChatMessage[]): void {
  expect(sent[0]!.role).toBe("system");
  expect(sent.slice(1).every((m) => m.role !== "system")).toBe(true);
  expect(sent[1]?.role).not.toBe("tool");
  for (let i = 1; i < sent.length; i++) {
    const m = sent[i]!;
    if (m.role === "assistant" && m.tool_calls?.length) {
      const results = [];
      let j = i + 1;
      while (sent[j]?.role === "tool") results.push(sent[j++]!.tool_call_id);
      expect(new Set(results)).toEqual(new Set(m.tool_calls.map((c) => c.id)));
    }
    if (m.role === "tool") {
      let j = i - 1;
      while (sent[j]!.role === "tool") j--;
      const owner = sent[j]!;
      expect(owner.role).toBe("assistant");
      expect(owner.tool_calls?.map((c) => c.id)).toContain(m.tool_call_id);
    }
    if (m.role === "assistant") expect(m.content !== null || (m.tool_calls?.length ?? 0) > 0).toBe(true);
  }
}

/** The report describes exactly what was sent. */
function assertReportMatches(report: SliceReport, sent: ChatMessage[], history: Message[]): void {
  const parsed = SliceReportSchema.parse(JSON.parse(JSON.stringify(report)));
  expect(parsed).toEqual(report);
  const scene = sent.slice(1);
  const placeholders = scene.filter((m) => m.role === "user" && /omitted here to fit the context budget/.test(m.content ?? ""));
  expect(report.scene.placeholders).toBe(placeholders.length);
  expect(report.scene.items.length).toBe(scene.length - placeholders.length);
  expect(report.scene.used).toBe(scene.reduce((n, m) => n + messageTokens(m), 0));
  const sentItems = scene.filter((m) => !placeholders.includes(m));
  report.scene.items.forEach((item, k) => {
    expect(item.role).toBe(sentItems[k]!.role);
    expect(item.tokens).toBe(messageTokens(sentItems[k]!));
    expect(item.preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    if (!item.truncated) expect(sentItems[k]!.content).toBe(history[item.index]!.content);
  });
  // every saved message is either sent or in a dropped range, never both
  const droppedSet = new Set(report.scene.dropped_ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i)));
  expect(droppedSet.size).toBe(report.scene.dropped_count);
  const sentSet = new Set(report.scene.items.map((i) => i.index));
  const leading = history.findIndex((m) => m.role !== "system");
  for (let i = Math.max(0, leading); i < history.length; i++) expect(droppedSet.has(i) !== sentSet.has(i)).toBe(true);
  // the system message holds the global and private slices
  expect(countTokens(sent[0]!.content)).toBeGreaterThanOrEqual(report.global.used + report.private.used);
  // the total adds the system message's parts up: within a couple of tokens per seam of counting it whole
  const exact = messageTokens(sent[0]!) + report.scene.used;
  expect(Math.abs(report.total_tokens - exact)).toBeLessThanOrEqual(4);
  for (const line of [...report.global.lines, ...report.private.lines]) expect(line.preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

// ------------------------------------------------------------------ tests

describe("buildModelInput — small histories", () => {
  it("sends everything when the history fits, with the slices in the system message", () => {
    const history = [person("Please check the login flow"), ...toolTurn(1, 20, "create_sub_agent"), report("Coder_1", "Done. CONCLUSION: bug found"), say("Here is the summary.")];
    const { messages, report: r } = build(history, { promoted: ["bug found"], privateNotes: ["checked login.ts"] });
    expect(messages.length).toBe(history.length + 1);
    expect(messages.slice(1).map((m) => m.content)).toEqual(history.map((m) => m.content));
    expect(messages[0]!.content).toContain("You are the Team Leader.");
    expect(messages[0]!.content).toContain("Project folder: /work/project");
    expect(messages[0]!.content).toContain("Goal: Find and fix the login bug");
    expect(messages[0]!.content).toContain("- bug found");
    expect(messages[0]!.content).toContain("- checked login.ts");
    expect(r.scene.dropped_count).toBe(0);
    expect(r.scene.placeholders).toBe(0);
    expect(r.scene.instruction_index).toBe(0);
    expect(r.scene.items[0]!.weight).toBe("instruction");
    expect(r.scene.items.find((i) => i.index === 3)!.weight).toBe("negotiation");
    assertValidChat(messages);
    assertReportMatches(r, messages, history);
  });

  it("folds an agent's saved system message into the one system message", () => {
    const history: Message[] = [{ role: "system", content: "You are Coder_1." }, task("Read the config"), ...toolTurn(1, 10)];
    const { messages, report: r } = buildModelInput({ kind: "agent", system: "Mark conclusions with CONCLUSION:", messages: history, facts });
    expect(messages.filter((m) => m.role === "system")).toHaveLength(1);
    expect(messages[0]!.content!.startsWith("You are Coder_1.\n\nMark conclusions with CONCLUSION:")).toBe(true);
    expect(messages.slice(1).map((m) => m.content)).toEqual(history.slice(1).map((m) => m.content));
    expect(r.scene.instruction_index).toBe(1);
    assertReportMatches(r, messages, history);
  });

  it("never mutates its input", () => {
    const history = [person("go"), ...Array.from({ length: 60 }, () => toolTurn(2, 400)).flat(), report("A_1", words(3000))];
    const copy = structuredClone(history);
    deepFreeze(history);
    const promoted = deepFreeze(["a", "b"]);
    expect(() => build(history, { promoted, budgets: { scene: 1500 } })).not.toThrow();
    expect(history).toEqual(copy);
  });
});

describe("buildModelInput — long runs stay within budget", () => {
  it("a leader run of hundreds of messages: budget kept, newest instruction kept, valid chat", () => {
    const history: Message[] = [person("first goal")];
    for (let i = 0; i < 80; i++) {
      history.push(...toolTurn(1 + (i % 3), 50 + (i % 7) * 40, "create_sub_agent"));
      if (i % 4 === 0) history.push(report(`Agent_${i}`, words(120)));
      if (i === 50) history.push(person("NEW INSTRUCTION: also check the signup page"));
      history.push(say(words(30 + (i % 5) * 20)));
    }
    expect(history.length).toBeGreaterThan(300);
    const { messages, report: r } = build(history);
    expect(r.scene.used).toBeLessThanOrEqual(3000);
    expect(r.scene.over_budget).toBe(false);
    expect(messages.some((m) => m.content === "NEW INSTRUCTION: also check the signup page")).toBe(true);
    expect(history[r.scene.instruction_index!]!.content).toBe("NEW INSTRUCTION: also check the signup page");
    // the most recent message is among what is sent
    expect(r.scene.items.at(-1)!.index).toBe(history.length - 1);
    expect(r.scene.dropped_count).toBeGreaterThan(200);
    assertValidChat(messages);
    assertReportMatches(r, messages, history);
  });

  it("an agent reading huge files: the task survives, the latest result is cut rather than lost", () => {
    const history: Message[] = [{ role: "system", content: "You are Coder_1." }, task("Audit every file under src/")];
    for (let i = 0; i < 150; i++) history.push(...toolTurn(1, 2500), say(`step ${i}`));
    history.push(...toolTurn(1, 6000));
    const { messages, report: r } = buildModelInput({ kind: "agent", system: "", messages: history, facts, budgets: { scene: 4000 } });
    expect(r.scene.used).toBeLessThanOrEqual(4000);
    expect(messages[1]!.content).toBe(history[1]!.content);
    const last = r.scene.items.at(-1)!;
    expect(last.index).toBe(history.length - 1);
    expect(last.truncated).toBe(true);
    expect(messages.at(-1)!.content).toMatch(/^r0 r1 r2/);
    expect(messages.at(-1)!.content).toMatch(/cut to fit the context budget/);
    assertValidChat(messages);
    assertReportMatches(r, messages, history);
  });

  it("random histories under random budgets keep every invariant", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = rng(seed);
      const kind = rand() < 0.5 ? "leader" : "agent";
      const history: Message[] = kind === "agent" ? [{ role: "system", content: "role prompt" }, task(words(20 + Math.floor(rand() * 200), "t"))] : [person(words(20, "p"))];
      const n = 50 + Math.floor(rand() * 300);
      let instructionText = history.at(-1)!.content;
      while (history.length < n) {
        const x = rand();
        if (x < 0.45) history.push(...toolTurn(1 + Math.floor(rand() * 3), Math.floor(rand() * (rand() < 0.1 ? 5000 : 300))));
        else if (x < 0.65) history.push(say(words(Math.floor(rand() * 200))));
        else if (x < 0.8) history.push(kind === "leader" ? report("A_1", words(Math.floor(rand() * 400))) : teammate(words(Math.floor(rand() * 300))));
        else if (x < 0.85) {
          const m = kind === "leader" ? person(`instruction ${history.length}: ${words(Math.floor(rand() * 100))}`) : task(`task ${history.length}: ${words(Math.floor(rand() * 100))}`);
          history.push(m);
          instructionText = m.content;
        } else history.push(say(words(5)));
      }
      const scene = 500 + Math.floor(rand() * 4000);
      const { messages, report: r } = buildModelInput({ kind, system: "base", messages: history, facts, budgets: { scene }, promoted: ["x", "y"], privateNotes: ["read a"] });
      const instructionTokens = messageTokens({ role: "user", content: instructionText });
      if (instructionTokens < scene / 2) {
        expect(r.scene.used, `seed ${seed}`).toBeLessThanOrEqual(scene);
        expect(r.scene.over_budget).toBe(false);
      }
      expect(messages.some((m) => m.content === instructionText), `seed ${seed}`).toBe(true);
      assertValidChat(messages);
      assertReportMatches(r, messages, history);
    }
  });
});

describe("buildModelInput — eviction order", () => {
  it("drops conversation flow before negotiation, and keeps the newest flow first", () => {
    const history: Message[] = [person("Coordinate the audit")];
    const reports: Message[] = [];
    for (let i = 0; i < 10; i++) {
      history.push(say(words(100, `flow${i}_`)));
      const rep = report(`A_${i}`, words(60, `rep${i}_`));
      reports.push(rep);
      history.push(rep);
    }
    const reportTokens = reports.reduce((n, m) => n + messageTokens({ role: "user", content: m.content }), 0);
    const instructionTokens = messageTokens({ role: "user", content: history[0]!.content });
    // room for the instruction, every report, two flow messages and the placeholders
    const budget = instructionTokens + reportTokens + 2 * messageTokens({ role: "assistant", content: words(100, "flow9_") }) + 120;
    const { messages, report: r } = build(history, { budgets: { scene: budget } });
    const sent = new Set(messages.map((m) => m.content));
    for (const rep of reports) expect(sent.has(rep.content)).toBe(true);
    expect(sent.has(history[0]!.content)).toBe(true);
    const keptFlow = r.scene.items.filter((i) => i.weight === "flow").map((i) => i.index);
    expect(keptFlow.length).toBeGreaterThanOrEqual(1);
    expect(keptFlow.length).toBeLessThan(10);
    // the kept flow messages are the newest ones
    const allFlow = history.map((m, i) => (m.role === "assistant" ? i : -1)).filter((i) => i >= 0);
    expect(keptFlow).toEqual(allFlow.slice(-keptFlow.length));
    expect(r.scene.used).toBeLessThanOrEqual(budget);
    expect(messages.some((m) => m.content === placeholderText(1))).toBe(true);
    assertReportMatches(r, messages, history);
  });

  it("keeps a tool call and its results together, or drops both", () => {
    const history: Message[] = [person("go")];
    for (let i = 0; i < 40; i++) history.push(...toolTurn(3, 100));
    const { messages, report: r } = build(history, { budgets: { scene: 2000 } });
    assertValidChat(messages);
    const sentIndices = new Set(r.scene.items.map((i) => i.index));
    history.forEach((m, i) => {
      if (m.role === "assistant") {
        for (let k = 1; k <= 3; k++) expect(sentIndices.has(i + k)).toBe(sentIndices.has(i));
      }
    });
    expect(r.scene.used).toBeLessThanOrEqual(2000);
  });

  it("keeps the newest instruction whole even when it alone is over budget, and says so", () => {
    const huge = `Please do all of this: ${words(3000)}`;
    const history = [person("old request"), say("ok"), ...toolTurn(1, 50), person(huge), say("working on it")];
    const { messages, report: r } = build(history, { budgets: { scene: 1000 } });
    expect(messages.some((m) => m.content === huge)).toBe(true);
    expect(r.scene.over_budget).toBe(true);
    expect(r.scene.items.map((i) => i.index)).toEqual([4]);
    expect(r.scene.used).toBe(messageTokens({ role: "user", content: huge }) + messageTokens({ role: "user", content: placeholderText(4) }) + messageTokens({ role: "user", content: placeholderText(1) }));
    // everything else made way, replaced by placeholders (before and after it)
    expect(r.scene.placeholders).toBe(2);
    assertValidChat(messages);
    assertReportMatches(r, messages, history);
  });

  it("for an agent, the current task is the instruction, not an older task or a teammate's message", () => {
    const history: Message[] = [{ role: "system", content: "sys" }, task("old task"), ...toolTurn(1, 10), task("CURRENT task"), teammate("fyi"), ...toolTurn(1, 10)];
    const { report: r } = buildModelInput({ kind: "agent", system: "", messages: history, facts });
    expect(history[r.scene.instruction_index!]!.content).toContain("CURRENT task");
  });

  it("for the leader, the latest plain person message is the instruction, not a later report", () => {
    const history = [person("first"), say("ok"), person("SECOND"), report("A_1", "done")];
    expect(build(history).report.scene.instruction_index).toBe(2);
  });

  it("drops a tool result whose call is missing and a call whose result is missing", () => {
    const orphan: Message = { role: "tool", tool_call_id: "nope", content: "stray" };
    const dangling: Message = { role: "assistant", content: "thinking aloud", tool_calls: [{ id: "x1", type: "function", function: { name: "read_file", arguments: "{}" } }] };
    const history = [orphan, person("go"), dangling, say("done")];
    const { messages, report: r } = build(history);
    assertValidChat(messages);
    expect(messages.some((m) => m.content === "stray")).toBe(false);
    // the dangling call's text is kept, the unanswered call itself is not sent
    const sentDangling = messages.find((m) => m.content === "thinking aloud")!;
    expect(sentDangling.tool_calls).toBeUndefined();
    expect(r.scene.dropped_ranges).toEqual([[0, 0]]);
  });

  it("cuts huge tool-call arguments but keeps them valid JSON", () => {
    const call = { id: "w1", type: "function" as const, function: { name: "write_file", arguments: JSON.stringify({ path: "big.txt", content: words(8000) }) } };
    const history: Message[] = [person("write it"), { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "w1", content: "wrote big.txt" }];
    const { messages, report: r } = build(history, { budgets: { scene: 2000 } });
    const sent = messages.find((m) => m.tool_calls?.length)!;
    const args = JSON.parse(sent.tool_calls![0]!.function.arguments) as { path: string; content: string };
    expect(args.path).toBe("big.txt");
    expect(args.content).toMatch(/^w0 w1 w2 .*…\[cut \d+ chars\]$/s);
    expect(r.scene.used).toBeLessThanOrEqual(2000);
    assertValidChat(messages);
  });
});

describe("buildModelInput — global and private slices", () => {
  it("promoted conclusions appear newest first, within the global budget", () => {
    const promoted = Array.from({ length: 100 }, (_, i) => `conclusion number ${i}: ${words(8, `c${i}_`)}`);
    const { messages, report: r } = build([person("go")], { promoted });
    expect(r.global.used).toBeLessThanOrEqual(500);
    expect(r.global.budget).toBe(500);
    const included = r.global.lines.filter((l) => l.label === "conclusion" && l.included);
    expect(included.length).toBeGreaterThan(3);
    expect(included.length).toBeLessThan(100);
    const system = messages[0]!.content!;
    // newest first: 99 before 98 before …, and the oldest are the ones left out
    const positions = included.map((_, k) => system.indexOf(`conclusion number ${99 - k}:`));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(system).not.toContain("conclusion number 0:");
    const conclusionLines = r.global.lines.filter((l) => l.label === "conclusion");
    expect(conclusionLines[0]!.preview.startsWith("conclusion number 99")).toBe(true);
    expect(conclusionLines.findIndex((l) => !l.included)).toBe(included.length);
    // the global section as rendered is what the report counts
    const start = system.indexOf("## Shared context");
    const end = system.indexOf("## Your private notes");
    expect(countTokens(system.slice(start, end < 0 ? undefined : end).trimEnd())).toBe(r.global.used);
  });

  it("a long goal is cut so conclusions keep room; facts are always first", () => {
    const { messages, report: r } = build([person("go")], { facts: { project_path: "/p", goal: words(2000), target_paths: ["src/a", "src/b"] }, promoted: ["keep me"] });
    expect(r.global.used).toBeLessThanOrEqual(500);
    expect(r.global.lines.map((l) => [l.label, l.included])).toEqual([["project", true], ["targets", true], ["goal", true], ["conclusion", true]]);
    expect(r.global.lines[2]!.truncated).toBe(true);
    expect(messages[0]!.content).toContain("Target paths: src/a, src/b");
    expect(messages[0]!.content).toContain("- keep me");
  });

  it("private notes: newest first within their budget", () => {
    const notes = Array.from({ length: 300 }, (_, i) => `read src/file_${i}.ts`);
    const { messages, report: r } = build([person("go")], { privateNotes: notes, budgets: { private: 200 } });
    expect(r.private.used).toBeLessThanOrEqual(200);
    expect(r.private.used).toBeGreaterThan(150);
    expect(messages[0]!.content).toContain("read src/file_299.ts");
    expect(messages[0]!.content).not.toContain("read src/file_0.ts");
  });

  it("leaves a slice out entirely when there is nothing for it", () => {
    const { messages, report: r } = build([person("go")], { facts: { project_path: "/p", goal: "" } });
    expect(r.private.used).toBe(0);
    expect(messages[0]!.content).not.toContain("private notes");
  });
});

describe("conversationGoal", () => {
  it("is the first plain person message", () => {
    expect(conversationGoal([report("A_1", "x"), person("  Build the thing  "), person("later")])).toBe("Build the thing");
    expect(conversationGoal([report("A_1", "x")])).toBeNull();
  });
});

describe("buildModelInput — speed", () => {
  it("handles a thousand-message history quickly", () => {
    const history: Message[] = [person("go")];
    while (history.length < 1000) history.push(...toolTurn(1, 200), say(words(40)));
    const t = performance.now();
    const { report: r } = build(history);
    expect(r.scene.used).toBeLessThanOrEqual(3000);
    expect(performance.now() - t).toBeLessThan(2000);
  });
});

describe("runtime notes", () => {
  it("a note the runtime writes for the leader is never taken for the person's instruction", () => {
    const history: Message[] = [
      { role: "user", content: "The real goal", message_id: "m1", metadata: { message_source: "user" } },
      { role: "assistant", content: "ok", message_id: "m2" },
      { role: "user", content: "[Astrion] Every agent on the critical path has reported.", message_id: "m3", metadata: { message_source: "system" } },
    ];
    const { report } = buildModelInput({ kind: "leader", system: "", messages: history, facts: { project_path: "/p", goal: "g" } });
    expect(report.scene.instruction_index).toBe(0);
    expect(conversationGoal(history)).toBe("The real goal");
  });
});

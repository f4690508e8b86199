import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { collectPromotions, deriveWorkNotes } from "./promotions";
import { buildModelInput, conversationGoal, type BuildModelInputOptions } from "./slices";
import { randomSteps, rng, words } from "@/test/helpers/context/histories";
import { buildModelInputFromScratch, collectPromotionsFromScratch, conversationGoalFromScratch, deriveWorkNotesFromScratch } from "@/test/helpers/context/from-scratch";
import { tokenizerStats } from "./tokens";
import { ContextWindow, contextWindowFor } from "./window";

const facts = { project_path: "/work/project", goal: "Find and fix the login bug" };

/** The same bytes a request body would carry (key order included). */
const bytes = (value: unknown) => JSON.stringify(value);

function options(kind: "leader" | "agent", messages: readonly Message[], scene: number): BuildModelInputOptions {
  return { kind, system: "You are the Team Leader.", messages, facts, promoted: ["an older conclusion"], privateNotes: ["read a.ts"], budgets: { scene } };
}

describe("ContextWindow — the same output as a build from scratch", () => {
  it("random histories appended step by step: every call equals the from-scratch build, byte for byte", () => {
    let jsonSent = 0;
    let jsonCut = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const rand = rng(seed * 7919);
      const kind = rand() < 0.5 ? "leader" : "agent";
      const steps = randomSteps(seed, kind, 40 + Math.floor(rand() * 100));
      let scene = 300 + Math.floor(rand() * 3500);
      const window = new ContextWindow();
      const history: Message[] = [];
      steps.forEach((step, k) => {
        history.push(...step);
        // the budget changes once (items cut to the old cap must be cut again)
        if (k === Math.floor(steps.length / 2)) scene = 300 + Math.floor(rand() * 3500);
        const other = kind === "leader" ? "agent" : "leader";
        const at = `seed ${seed}, step ${k}, ${history.length} messages`;
        const built = window.build(options(kind, history, scene));
        expect(bytes(built), at).toBe(bytes(buildModelInputFromScratch(options(kind, history, scene))));
        // a JSON tool result is sent as JSON, cut or not
        for (const item of built.report.scene.items) {
          const original = history[item.index]!;
          if (original.role === "tool" && original.content?.startsWith("{")) jsonSent++;
          if (original.role === "tool" && original.content?.startsWith("{") && item.truncated) jsonCut++;
        }
        for (const m of built.messages) if (m.role === "tool" && m.content?.startsWith("{")) expect(() => JSON.parse(m.content!), at).not.toThrow();
        // the same window serves the other kind of call too (the instruction is per kind)
        if (k % 5 === 0) expect(bytes(window.build(options(other, history, scene))), at).toBe(bytes(buildModelInputFromScratch(options(other, history, scene))));
        expect(window.promotions(history), at).toEqual(collectPromotionsFromScratch(history));
        expect(window.workNotes(history), at).toEqual(deriveWorkNotesFromScratch(history));
        expect(window.goal(history), at).toBe(conversationGoalFromScratch(history));
      });
      expect(window.stats.restarts).toBe(0);
      expect(window.stats.scene).toBe(history.length);
    }
    // the histories do send JSON results, some of them cut
    expect(jsonSent).toBeGreaterThan(50);
    expect(jsonCut).toBeGreaterThan(5);
  });

  it("the public functions find a history's window by its first message, as the store hands out new arrays of the same messages", () => {
    for (let seed = 101; seed <= 106; seed++) {
      const kind = seed % 2 ? "leader" : "agent";
      let history: Message[] = [];
      for (const step of randomSteps(seed, kind, 120)) {
        // what LiveConversation does: a new array, the saved message objects reused
        history = [...history, ...step];
        expect(bytes(buildModelInput(options(kind, history, 1500)))).toBe(bytes(buildModelInputFromScratch(options(kind, history, 1500))));
        expect(collectPromotions(history)).toEqual(collectPromotionsFromScratch(history));
        expect(deriveWorkNotes(history)).toEqual(deriveWorkNotesFromScratch(history));
        expect(conversationGoal(history)).toBe(conversationGoalFromScratch(history));
      }
      const stats = contextWindowFor(history).stats;
      expect(stats.restarts).toBe(0);
      // each message was taken in once by each list, not once per call
      expect([stats.scene, stats.promotions, stats.notes]).toEqual([history.length, history.length, history.length]);
    }
  });
});

describe("ContextWindow — a history that does not continue the one seen starts over", () => {
  const first: Message = { role: "user", content: "The real goal", metadata: { message_source: "user" } };
  const turn = (tag: string, n: number): Message[] => [
    { role: "assistant", content: null, tool_calls: [{ id: `${tag}${n}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `${tag}/${n}.ts` }) } }] },
    { role: "tool", tool_call_id: `${tag}${n}`, content: words(300, `${tag}${n}_`) },
    { role: "assistant", content: `${tag} step ${n}\nCONCLUSION: ${tag} ${n}` },
  ];
  const grow = (tag: string, turns: number) => [first, ...Array.from({ length: turns }, (_, n) => turn(tag, n)).flat()];
  const check = (history: readonly Message[]) => {
    expect(bytes(buildModelInput(options("leader", history, 1200)))).toBe(bytes(buildModelInputFromScratch(options("leader", history, 1200))));
    expect(collectPromotions(history)).toEqual(collectPromotionsFromScratch(history));
    expect(deriveWorkNotes(history)).toEqual(deriveWorkNotesFromScratch(history));
  };

  it("a file replaced wholesale behind the same first message, a history cut short, a message replaced", () => {
    const a = grow("a", 20);
    check(a);
    const window = contextWindowFor(a);
    expect(window.stats.restarts).toBe(0);
    // the same first message, every other message different
    const b = grow("b", 25);
    check(b);
    expect(contextWindowFor(b)).toBe(window);
    expect(window.stats.restarts).toBe(1);
    // shorter than what was seen
    check(b.slice(0, 30));
    expect(window.stats.restarts).toBe(2);
    // and on from there again: a continuation
    check(b);
    expect(window.stats.restarts).toBe(2);
    // as long, but a message seen before (position 31 = 2^5 - 1) is another object now
    const c = [...b];
    c[31] = { ...c[31]!, content: "changed" };
    check(c);
    expect(window.stats.restarts).toBe(3);
    // appending to the same array (no new array) continues
    const before = window.stats.scene;
    c.push(...turn("c", 0));
    check(c);
    expect(window.stats.restarts).toBe(3);
    expect(window.stats.scene).toBe(before + 3);
  });
});

describe("ContextWindow — work per call does not grow with the history", () => {
  it("a call whose private notes changed tokenizes the new notes and section, not the whole system message again", () => {
    const rolePrompt = words(3_000, "prompt");
    const history: Message[] = [
      { role: "system", content: rolePrompt, message_id: "msg_sys", metadata: { message_source: "system", visibility: "hidden", starts_work: false } },
      { role: "user", content: "Read the project and report.", message_id: "msg_task", metadata: { message_source: "leader", visibility: "chat", starts_work: true } },
    ];
    const window = new ContextWindow();
    const notes = Array.from({ length: 12 }, (_, i) => `read src/module-${i}.ts (${i * 10} lines)`);
    const call = (n: number) => window.build({ ...options("agent", history, 3_000), system: "You are: Researcher_1", privateNotes: notes.slice(0, n) });
    call(1);
    const before = tokenizerStats.chars;
    const report = call(12).report;
    const spent = tokenizerStats.chars - before;
    expect(report.private.lines.filter((l) => l.included)).toHaveLength(12);
    // the role prompt (thousands of characters) is not counted again; the notes and their section are
    expect(spent).toBeLessThan(rolePrompt.length / 4);
    expect(spent).toBeLessThan(2 * notes.join("\n").length + 200);
  });

  it("1,000 messages appended one at a time: each looked at once per list, the fill visits a bounded number of items", () => {
    const history: Message[] = [{ role: "user", content: "Coordinate the audit", metadata: { message_source: "user" } }];
    const window = contextWindowFor(history);
    let maxVisits = 0;
    let step = 0;
    const call = () => {
      // what a leader or agent call asks for (the lists are passed on as they are; their slices are
      // filled within their own budgets and are not what this test is about)
      window.promotions(history);
      window.workNotes(history);
      window.goal(history);
      const input = window.build(options("leader", history, 3000));
      maxVisits = Math.max(maxVisits, window.stats.lastFillVisits);
      return input;
    };
    while (history.length < 1000) {
      step++;
      history.push({ role: "assistant", content: null, tool_calls: [{ id: `c${step}`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/${step}.ts` }) } }] });
      call();
      history.push({ role: "tool", tool_call_id: `c${step}`, content: words(20 + ((step * 37) % 300), `r${step}_`) });
      call();
      if (step % 4 === 0) {
        history.push({ role: "user", content: `来自 Coder_1 的任务完成汇报\nid: out_${step}\n\n${words(60)}\nCONCLUSION: part ${step} done`, metadata: { message_source: "sub_agent" } });
        call();
      }
      if (step % 3 === 0) {
        history.push({ role: "assistant", content: words(step % 40) });
        call();
      }
    }
    const stats = window.stats;
    expect(stats.restarts).toBe(0);
    expect([stats.scene, stats.promotions, stats.notes]).toEqual([history.length, history.length, history.length]);
    // the goal is the first message: nothing after it is looked at
    expect(stats.goal).toBe(1);
    // an item is recomputed when its results come, not on every call
    expect(stats.itemsComputed).toBeLessThanOrEqual(history.length);
    // a from-scratch fill looks at every item (~600 here) on every call
    expect(maxVisits).toBeLessThan(80);
    expect(stats.fillVisits).toBeLessThan(80 * 1200);
    expect(bytes(call())).toBe(bytes(buildModelInputFromScratch(options("leader", history, 3000))));
    expect(window.promotions(history)).toEqual(collectPromotionsFromScratch(history));
    expect(window.workNotes(history)).toEqual(deriveWorkNotesFromScratch(history));
  });
});

describe("ContextWindow — runs of over 1,000 dropped messages", () => {
  it("where a placeholder costs one token more, items of one size are kept exactly as from scratch", () => {
    // like the bench's growing leader: the same call and the same result again and again, a few
    // other messages between them, so many candidates sit right at the edge of fitting
    const history: Message[] = [{ role: "user", content: "Grow the conversation", metadata: { message_source: "user" } }];
    const window = new ContextWindow();
    const budgets = [260, 420, 700, 1100, 1900];
    for (let step = 0; history.length < 2400; step++) {
      history.push({ role: "assistant", content: null, tool_calls: [{ id: `c${step}`, type: "function", function: { name: "list_agents", arguments: "{}" } }] });
      history.push({ role: "tool", tool_call_id: `c${step}`, content: '{"agents":[]}' });
      if (step % 97 === 0) history.push({ role: "user", content: `来自 Coder_1 的消息\nid: msg_${step}\n\nstill going ${step}` });
      if (step % 31 === 0) history.push({ role: "assistant", content: "ok" });
      window.build(options("leader", history, budgets[step % budgets.length]!));
    }
    for (const scene of budgets) {
      expect(bytes(window.build(options("leader", history, scene))), `scene ${scene}`).toBe(bytes(buildModelInputFromScratch(options("leader", history, scene))));
      expect(window.stats.lastFillVisits).toBeLessThan(400);
    }
  });

  it("an item in the middle of such a run, where both placeholders it leaves cost less, is kept when it fits by that", () => {
    // instruction, 600 messages, a small one, 599 messages, the latest: keeping the small one
    // splits a run of 1,200 (a dearer placeholder) into two of about 600 (cheaper ones)
    const say = (text: string): Message => ({ role: "assistant", content: text });
    const filler = (k: number) => say(words(36, `m${k}_`));
    const small = say("Small step.");
    const history: Message[] = [{ role: "user", content: "Go", metadata: { message_source: "user" } }];
    for (let k = 0; k < 600; k++) history.push(filler(k));
    history.push(small);
    for (let k = 600; k < 1199; k++) history.push(filler(k));
    history.push(say("Latest."));
    const window = new ContextWindow();
    // the scene with only the instruction and placeholders; the latest and the small one fit within about 35 more
    const base = buildModelInputFromScratch(options("leader", history, 10)).report.scene.used;
    let keptSmall = 0;
    for (let scene = base + 24; scene < base + 44; scene++) {
      const ours = window.build(options("leader", history, scene));
      expect(bytes(ours), `scene ${scene}`).toBe(bytes(buildModelInputFromScratch(options("leader", history, scene))));
      if (ours.report.scene.items.some((item) => item.index === 601)) keptSmall++;
    }
    // the budgets tried include ones where it just fits and ones where it does not
    expect(keptSmall).toBeGreaterThan(0);
    expect(keptSmall).toBeLessThan(20);
  });
});


import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { buildModelInput, countTokens } from ".";
import { MEMORY_HEADING, MEMORY_SHARE } from "./lines";
import type { RecalledMemory } from "./types";

const messages: Message[] = [{ role: "user", content: "Review the payment service", message_id: "u1", metadata: { message_source: "user" } }];
const entry = (i: number, words = 8): RecalledMemory => ({
  entry_id: `mem_${i}`,
  kind: "fact",
  level: i % 2 ? "public" : "project",
  statement: `Entry ${i}: ${Array.from({ length: words }, (_, k) => `word${k}`).join(" ")}`,
  source: { conversation_id: `conv_20261130_12000${i % 10}_001`, title: `Earlier talk ${i}` },
});

function build(memory: RecalledMemory[], promoted: string[] = [], global = 500) {
  return buildModelInput({ kind: "leader", system: "You lead.", messages, facts: { project_path: "/p", goal: "Review the payment service" }, promoted, memory, budgets: { global } });
}

describe("recalled memory in the global slice", () => {
  it("renders each entry with its citation, most relevant first, and reports it as a memory line", () => {
    const input = build([entry(1), entry(2)]);
    const system = String(input.messages[0]!.content);
    expect(system).toContain(`${MEMORY_HEADING}\n- [fact] Entry 1: word0`);
    expect(system).toContain('(from conv_20261130_120001_001 "Earlier talk 1")');
    expect(system.indexOf("Entry 1")).toBeLessThan(system.indexOf("Entry 2"));
    const lines = input.report.global.lines.filter((l) => l.label === "memory");
    expect(lines.map((l) => [l.memory?.entry_id, l.memory?.conversation_id, l.memory?.title, l.included])).toEqual([
      ["mem_1", "conv_20261130_120001_001", "Earlier talk 1", true],
      ["mem_2", "conv_20261130_120002_001", "Earlier talk 2", true],
    ]);
  });

  it("an entry a person added is cited as such", () => {
    const input = build([{ ...entry(3), source: { conversation_id: null } }]);
    expect(String(input.messages[0]!.content)).toContain("(added by a person)");
  });

  it("many long entries stay within the memory share and the global budget; the conversation's conclusions keep their room", () => {
    const many = Array.from({ length: 60 }, (_, i) => entry(i, 40));
    const input = build(many, ["The order API is deprecated."]);
    const g = input.report.global;
    expect(g.used).toBeLessThanOrEqual(g.budget);
    const memoryLines = g.lines.filter((l) => l.label === "memory");
    const included = memoryLines.filter((l) => l.included);
    expect(included.length).toBeGreaterThan(0);
    expect(included.length).toBeLessThan(60);
    // most relevant first: the included ones are a prefix
    expect(memoryLines.slice(0, included.length).every((l) => l.included)).toBe(true);
    const memoryTokens = included.reduce((n, l) => n + l.tokens, 0);
    expect(memoryTokens).toBeLessThanOrEqual(Math.floor(g.budget * MEMORY_SHARE) + countTokens(MEMORY_HEADING) + 1);
    expect(g.lines.find((l) => l.label === "conclusion")?.included).toBe(true);
    expect(countTokens(String(input.messages[0]!.content).slice(String(input.messages[0]!.content).indexOf("## Shared context")))).toBeLessThanOrEqual(g.budget + 2);
  });

  it("no memory, no heading", () => {
    expect(String(build([]).messages[0]!.content)).not.toContain(MEMORY_HEADING);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";

// Every text the tokenizer is given, counted: tokens.ts calls gpt-tokenizer's countTokens.
const counted = new Map<string, number>();
vi.mock("gpt-tokenizer", async (importOriginal) => {
  const real = await importOriginal<typeof import("gpt-tokenizer")>();
  return {
    ...real,
    countTokens: (text: string, options?: Parameters<typeof real.countTokens>[1]) => {
      counted.set(text, (counted.get(text) ?? 0) + 1);
      return real.countTokens(text, options);
    },
  };
});

const { buildModelInput } = await import("./slices");
const { countTokens, TOKEN_CACHE_CHARS_LIMIT, tokenCacheSize } = await import("./tokens");

// A text longer than the per-text cache may hold evicts every text from it (and is not kept).
const OVERSIZED = "x".repeat(TOKEN_CACHE_CHARS_LIMIT + 1);

afterEach(() => counted.clear());

describe("token counts are computed once per message", () => {
  it("1,000 messages appended one by one, a model call after each: every text of every message reaches the tokenizer once", () => {
    const history: Message[] = [{ role: "user", content: "Audit the parser, file by file.", metadata: { message_source: "user" } }];
    // each text and how many messages carry it (a call's id is in the call and in its result)
    const texts = new Map<string, number>([[history[0]!.content!, 1]]);
    for (let step = 0; history.length < 1000; step++) {
      const id = `call_${step}`;
      const args = JSON.stringify({ path: `src/parser_${step}.ts` });
      const batch: Message[] = [
        { role: "assistant", content: `Reading part ${step} of the parser next.`, tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: args } }] },
        { role: "tool", tool_call_id: id, content: `export const part${step} = ${step}; // body of file ${step}` },
      ];
      if (step % 5 === 4) batch.push({ role: "user", content: `来自 Coder_1 的任务完成汇报\nid: out_${step}\n\nChecked up to part ${step}.` });
      for (const text of [batch[0]!.content!, args, batch[1]!.content!, ...(batch[2] ? [batch[2].content!] : [])]) texts.set(text, 1);
      texts.set(id, 2);
      for (const m of batch) {
        history.push(m);
        // the per-text cache forgets everything (an oversized text evicts it): only the per-message counts remain
        countTokens(OVERSIZED);
        expect(tokenCacheSize().texts).toBe(0);
        buildModelInput({ kind: "leader", system: "You are the Team Leader.", messages: history, facts: { project_path: "/p", goal: "g" } });
      }
    }
    expect(history.length).toBeGreaterThanOrEqual(1000);
    const wrong = [...texts].filter(([text, carriers]) => counted.get(text) !== carriers);
    expect(wrong.slice(0, 5).map(([text, carriers]) => ({ text, carriers, counted: counted.get(text) }))).toEqual([]);
    expect(texts.size).toBeGreaterThan(1000);
  });
});

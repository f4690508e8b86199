import { describe, expect, it } from "vitest";
import { ThinkSplitter } from "./think-splitter";

/** Feeds `pieces` and returns what came out, with adjacent pieces of a kind joined, and the assembled answer. */
function split(pieces: string[]): { parts: Array<[string, string]>; content: string; reasoning: string } {
  const parts: Array<[string, string]> = [];
  let content = "";
  let reasoning = "";
  const add = (kind: string, text: string) => {
    const last = parts[parts.length - 1];
    if (last && last[0] === kind) last[1] += text;
    else parts.push([kind, text]);
  };
  const splitter = new ThinkSplitter({
    content: (t) => ((content += t), add("content", t)),
    reasoning: (t) => ((reasoning += t), add("reasoning", t)),
    closedWithoutOpening: () => ((reasoning = content + reasoning), (content = "")),
  });
  for (const p of pieces) splitter.push(p);
  splitter.end();
  return { parts, content, reasoning };
}

/** Every way of cutting `text` into two pieces, and into single characters. */
function cuts(text: string): string[][] {
  const out: string[][] = [Array.from(text)];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

describe("ThinkSplitter", () => {
  it("moves <think>…</think> to the thinking, wherever the chunks cut the tags", () => {
    for (const pieces of cuts("<think>\nplan it\n</think>\n\nThe answer.")) {
      const { content, reasoning } = split(pieces);
      expect({ content, reasoning }).toEqual({ content: "The answer.", reasoning: "plan it\n" });
    }
  });

  it("treats an unterminated <think> at the start as thinking to the end", () => {
    for (const pieces of cuts("  <think>still thinking when the stream ends")) {
      expect(split(pieces)).toMatchObject({ content: "", reasoning: "still thinking when the stream ends" });
    }
  });

  it("moves what came before a </think> with no opening tag (the template opened it)", () => {
    for (const pieces of cuts("weighing options</think>\n\nDone.")) {
      expect(split(pieces)).toMatchObject({ content: "Done.", reasoning: "weighing options" });
    }
  });

  it("leaves text without tags alone, leading spaces and a lone < included", () => {
    expect(split(["  Hello ", "<", "b> world <thin"])).toMatchObject({ content: "  Hello <b> world <thin", reasoning: "" });
    expect(split(["a < b and c </ d"])).toMatchObject({ content: "a < b and c </ d", reasoning: "" });
  });

  it("keeps the order of text, thinking and text", () => {
    expect(split(["Intro. <think>mid</think> Outro."]).parts).toEqual([
      ["content", "Intro. "],
      ["reasoning", "mid"],
      ["content", "Outro."],
    ]);
  });
});

import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@/lib/models/types";
import { ListResultSchema, ReadResultSchema, SearchResultSchema } from "@/lib/workspace/results";
import { cutItem } from "./cut";
import { searchResult, words } from "@/test/helpers/context/histories";
import { messageTokens } from "./tokens";

const call = (name: string, args: unknown): ChatMessage => ({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name, arguments: JSON.stringify(args) } }] });
const result = (content: string): ChatMessage => ({ role: "tool", tool_call_id: "c1", content });

function cut(item: ChatMessage[], cap: number) {
  return cutItem(item, item.map(messageTokens), cap);
}

describe("cutItem", () => {
  const matches = Array.from({ length: 2000 }, (_, i) => ({ path: `src/file${i % 40}.ts`, line: i + 1, text: `export const atomic${i} = writeAtomic(${i});` }));
  const search = JSON.stringify({ matches, truncated: false, filesScanned: 40 });

  it("cuts a workspace tool's result as the tool shapes it: whole matches, the count of the rest brought up to date", () => {
    const item = [call("search_files", { query: "atomic" }), result(search)];
    const out = cut(item, 800);
    expect(out.truncated).toEqual([false, true]);
    // Still a search result as the tool sends one (no marker item among the matches).
    const sent = SearchResultSchema.parse(JSON.parse(out.sent[1]!.content!));
    const shown = sent.matches.length;
    expect(shown).toBeGreaterThan(5);
    expect(sent.matches).toEqual(matches.slice(0, shown));
    expect(sent).toMatchObject({ truncated: true, filesScanned: 40, omitted: 2000 - shown });
    expect(sent.note).toBe(`${2000 - shown} more matches not shown; narrow the query (a more specific word, or path/glob)`);
    // about the cap, as the text cut is
    expect(out.tokens).toBeLessThanOrEqual(800 * 1.05);
    expect(out.tokens).toBeGreaterThan(800 * 0.6);
    // the original is untouched
    expect(item[1]!.content).toBe(search);
  });

  it("adds what it leaves out to what the tool had left out, and keeps a lower bound a lower bound", () => {
    const earlier = SearchResultSchema.parse({ matches: matches.slice(0, 300), truncated: true, filesScanned: 40, omitted: 1700, note: "at least 1700 more matches not shown; narrow the query (a more specific word, or path/glob)" });
    const sent = SearchResultSchema.parse(JSON.parse(cut([call("search_files", { query: "atomic" }), result(JSON.stringify(earlier))], 600).sent[1]!.content!));
    expect(sent.omitted).toBe(2000 - sent.matches.length);
    expect(sent.note).toMatch(new RegExp(`^at least ${2000 - sent.matches.length} more matches not shown`));

    const entries = Array.from({ length: 900 }, (_, i) => ({ path: `src/module-${i}.ts`, type: "file" as const, size: 1000 + i }));
    const listing = ListResultSchema.parse({ path: "src", entries, truncated: true, omitted: 100, note: "100 more files not shown; list a subfolder" });
    const listed = ListResultSchema.parse(JSON.parse(cut([call("list_files", { path: "src" }), result(JSON.stringify(listing))], 500).sent[1]!.content!));
    expect(listed.entries).toEqual(entries.slice(0, listed.entries.length));
    expect(listed.omitted).toBe(1000 - listed.entries.length);
    expect(listed.note).toBe(`${1000 - listed.entries.length} more files not shown; list a subfolder`);
  });

  it("cuts a file that was read at a line boundary, with the lines shown counted again", () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: const value${i} = compute(${i});`).join("\n") + "\n";
    const read = ReadResultSchema.parse({ path: "src/big.ts", content: text, size: text.length, truncated: false, linesShown: 400, totalLines: 400 });
    const sent = ReadResultSchema.parse(JSON.parse(cut([call("read_file", { path: "src/big.ts" }), result(JSON.stringify(read))], 400).sent[1]!.content!));
    expect(sent.truncated).toBe(true);
    expect(sent.content.endsWith("\n")).toBe(true);
    expect(text.startsWith(sent.content)).toBe(true);
    expect(sent.linesShown).toBe(sent.content.split("\n").length - 1);
    expect(sent.note).toMatch(new RegExp(`^lines 1-${sent.linesShown} of 400 shown`));
  });

  it("shrinks any other tool's JSON by its structure: valid JSON, whole items and a count of the rest", () => {
    const item = [call("some_other_tool", { query: "atomic" }), result(search)];
    const sent = JSON.parse(cut(item, 800).sent[1]!.content!) as { matches: unknown[]; truncated: boolean; filesScanned: number };
    expect(sent.truncated).toBe(false);
    const shown = sent.matches.length - 1;
    expect(sent.matches.slice(0, shown)).toEqual(matches.slice(0, shown));
    expect(sent.matches.at(-1)).toBe(`…[${2000 - shown} more items not shown]`);
  });

  it("keeps a short result whole beside a huge one: the long texts share what the short ones leave", () => {
    const readme = JSON.stringify({ path: "README.md", content: "# Ledger\n\nBills customers and issues invoices.\n", size: 48, truncated: false });
    const item: ChatMessage[] = [
      { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "search_files", arguments: '{"query":"atomic"}' } }, { id: "b", type: "function", function: { name: "read_file", arguments: '{"path":"README.md"}' } }] },
      { role: "tool", tool_call_id: "a", content: search },
      { role: "tool", tool_call_id: "b", content: readme },
    ];
    const out = cut(item, 800);
    expect(out.truncated).toEqual([false, true, false]);
    expect(out.sent[2]!.content).toBe(readme);
    expect(JSON.parse(out.sent[1]!.content!).matches.length).toBeGreaterThan(5);
  });

  it("cuts a long string inside a JSON result with a count, keeping it JSON", () => {
    const read = JSON.stringify({ path: "notes.md", content: words(6000), size: 40_000, truncated: false, linesShown: 1, totalLines: 1 });
    const out = cut([call("fetch_notes", { path: "notes.md" }), result(read)], 600);
    const sent = JSON.parse(out.sent[1]!.content!) as { path: string; content: string; size: number };
    expect(sent).toMatchObject({ path: "notes.md", size: 40_000 });
    expect(sent.content).toMatch(/^w0 w1 w2 .*…\[cut \d+ chars\]$/s);
    expect(out.tokens).toBeLessThanOrEqual(600 * 1.05);
    // read_file's own result: its one long line cut as read_file cuts it, and said so.
    const own = cut([call("read_file", { path: "notes.md" }), result(read)], 600);
    const file = ReadResultSchema.parse(JSON.parse(own.sent[1]!.content!));
    expect(words(6000).startsWith(file.content)).toBe(true);
    expect(file).toMatchObject({ truncated: true, linesShown: 1, totalLines: 1 });
    expect(file.note).toMatch(/^line 1 alone is too long to show: only its first \d+ characters are shown/);
    expect(own.tokens).toBeLessThanOrEqual(600 * 1.05);
  });

  it("the histories' JSON results, under many caps, always stay JSON", () => {
    for (const n of [300, 900, 2400, 4000]) {
      for (const cap of [60, 150, 400, 1200]) {
        const out = cut([call("search_files", { query: "m" }), result(searchResult(n))], cap);
        expect(() => JSON.parse(out.sent[1]!.content!), `n ${n}, cap ${cap}`).not.toThrow();
      }
    }
  });

  it("cuts a plain-text tool result as text, with the note it always had", () => {
    const text = words(5000, "r");
    const out = cut([call("read_file", { path: "a.txt" }), result(text)], 500);
    expect(out.sent[1]!.content).toMatch(/^r0 r1 r2 .*\n…\[cut to fit the context budget: first \d+ of \d+ tokens shown\]$/s);
    expect(out.truncated).toEqual([false, true]);
  });

  it("JSON that is not a tool result (an assistant's text) is cut as text", () => {
    const text = JSON.stringify({ plan: words(4000) });
    const out = cut([{ role: "assistant", content: text }], 300);
    expect(out.sent[0]!.content).toMatch(/cut to fit the context budget/);
  });

  it("cuts tool-call arguments by structure too, nested arrays included", () => {
    const args = { path: "big.json", content: words(3000), rows: Array.from({ length: 800 }, (_, i) => ({ i, v: `row ${i}` })) };
    const out = cut([call("write_file", args), result("wrote big.json")], 500);
    const sent = JSON.parse(out.sent[0]!.tool_calls![0]!.function.arguments) as { path: string; content: string; rows: unknown[] };
    expect(sent.path).toBe("big.json");
    expect(sent.content).toMatch(/…\[cut \d+ chars\]$/);
    expect(sent.rows.at(-1)).toMatch(/^…\[\d+ more items not shown\]$/);
    expect(out.truncated[0]).toBe(true);
  });
});

import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import tokenizer, { countTokens as countRaw } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import {
  countParagraphTokens,
  countTokens,
  EXACT_COUNT_LIMIT,
  MAX_CHUNK_CHARS,
  MAX_RUN_CHARS,
  MERGE_CACHE_ENTRIES,
  MESSAGE_OVERHEAD,
  messageTokens,
  TOKEN_CACHE_CHARS_LIMIT,
  TOKEN_CACHE_LIMIT,
  tokenCacheSize,
  tokenizerChunks,
  tokenizerStats,
  truncateToTokens,
} from "./tokens";

describe("countTokens", () => {
  it("counts with the real o200k tokenizer", () => {
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("")).toBe(0);
    expect(countTokens(null)).toBe(0);
    // CJK text costs more than one token per few characters; a rough character count would be wrong
    expect(countTokens("请为项目设计前端配色方案")).toBeGreaterThan(3);
  });

  it("treats special-token text in a file as plain text instead of throwing", () => {
    expect(() => countTokens("before <|endoftext|> after")).not.toThrow();
    expect(countTokens("before <|endoftext|> after")).toBeGreaterThan(3);
  });

  it("gives the same answer from the cache", () => {
    const text = "x ".repeat(1000);
    expect(countTokens(text)).toBe(countTokens(text));
  });

  it("keeps a text used again while a stream of texts used once passes through, within its bounds", () => {
    const hot = `system prompt ${"of a conversation at work ".repeat(40)}`;
    countTokens(hot);
    // Many conversations each leave texts of their own (their agents' system prompts, slices).
    for (let i = 0; i < 3 * TOKEN_CACHE_LIMIT; i++) {
      countTokens(`conversation ${i}: ${"its own prompt ".repeat(30)}`);
      if (i % 100 === 0) {
        const before = tokenizerStats.chars;
        countTokens(hot);
        // Counted once, ever: each use keeps it from being the least recently used.
        expect(tokenizerStats.chars).toBe(before);
      }
      const held = tokenCacheSize();
      expect(held.texts).toBeLessThanOrEqual(TOKEN_CACHE_LIMIT);
      expect(held.chars).toBeLessThanOrEqual(TOKEN_CACHE_CHARS_LIMIT);
    }
  });
});

/** Evicts every text from the per-text count cache, through its bound: a text longer than the cache holds empties it and is not kept. */
function evictEveryText(): void {
  countTokens(OVERSIZED);
  expect(tokenCacheSize()).toEqual({ texts: 0, chars: 0 });
}
const OVERSIZED = "x".repeat(TOKEN_CACHE_CHARS_LIMIT + 1);

/** The heap in use after a full collection (`gc` made available to this test file). */
function heapUsed(): number {
  v8.setFlagsFromString("--expose-gc");
  (vm.runInNewContext("gc") as () => void)();
  return process.memoryUsage().heapUsed;
}

describe("the cache and the texts it was given", () => {
  it("keeps no longer text alive through a cached slice of it", () => {
    const role = "A paragraph of a role's long system prompt. ".repeat(8_000);
    const own = (i: number) => `You are agent ${i} of this team, working on its task.`;
    evictEveryText();
    // the first paragraphs of the second half of the prompts below, counted before as texts of their own
    for (let i = 20; i < 40; i++) countTokens(own(i));
    const before = heapUsed();
    for (let i = 0; i < 40; i++) {
      // a new agent's system prompt: its own first paragraph is counted as a slice of it, new to
      // the cache (the first 20) or found there (the last 20)
      const prompt = `${own(i)}\n\n${role}`;
      countTokens(prompt.slice(0, own(i).length));
    }
    // the 40 prompts are about 14 MB; a cached slice, new or found again,
    // may not keep its prompt
    expect(heapUsed() - before).toBeLessThan(4 * 1024 * 1024);
  });
});

describe("the tokenizer's own cache and the texts counted", () => {
  it("keeps no counted text alive through a piece the tokenizer caches", () => {
    evictEveryText();
    const body = "    const someLongVariableName = computeSomething(input);\n".repeat(7_000);
    const before = heapUsed();
    for (let i = 0; i < 40; i++) {
      // a file an agent read: a name of its own (one long piece, new to the tokenizer's cache), then the rest
      const name = `averylonglowercasename${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
      const file = `export const ${name} = 1;\n${body}`;
      countTokens(file);
      countTokens(file.slice(0, 6_000));
    }
    // the 40 files are about 16 MB; the per-text count cache may keep 1,000,000 characters of them
    expect(heapUsed() - before).toBeLessThan(4 * 1024 * 1024);
  });

  it("bounds the tokenizer's cache of pieces, and so the chunks it can keep", () => {
    // gpt-tokenizer keeps 100,000 by default; its processor is public in JavaScript, not in its types
    const processor = (tokenizer as unknown as { bytePairEncodingCoreProcessor: { mergeCacheSize: number } }).bytePairEncodingCoreProcessor;
    expect(processor.mergeCacheSize).toBe(MERGE_CACHE_ENTRIES);
    expect(MERGE_CACHE_ENTRIES).toBeLessThanOrEqual(5_000);
  });
});

describe("countParagraphTokens", () => {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
  const roleFiles = [
    ...readdirSync(path.join(ROOT, "agents")).map((f) => path.join(ROOT, "agents", f)),
    ...(existsSync(CORPUS) ? readdirSync(CORPUS).map((f) => path.join(CORPUS, f)) : []),
  ].filter((f) => f.endsWith(".md") && !f.endsWith("SOURCE.md"));
  /** An agent's system message as the runtime makes it: its own lines, a blank line, its role's prompt. */
  const systemMessage = (file: string, agent: number) =>
    `You are: Agent_${agent} (agent id ${agent}).\nConversation: conv_${agent}\n\n${readFileSync(file, "utf8").replace(/^---[\s\S]*?\n---\n/, "").trim()}`;

  it("is the real tokenizer's count of the whole text, for role prompts and texts cut in awkward places", () => {
    const texts = [
      ...roleFiles.map((f, i) => systemMessage(f, i + 1)),
      "end.\n\n/path/after/a/blank/line",
      "end.\n\n\n\nFour newlines, then text",
      "a\n\n  indented\n\n\tabbed\n\n- list\n\n## heading\n\n```ts\ncode();\n```\n\n",
      "\n\nstarts with a blank line\n\n",
      "中文段落。\n\n第二段：继续。\n\n'quoted' and 's contraction\n\n123 numbers\n\n!!! punctuation",
      "word\r\n\r\nwindows line ends\n\nthen unix",
    ];
    expect(roleFiles.length).toBeGreaterThanOrEqual(6);
    for (const text of texts) {
      if (text.length > EXACT_COUNT_LIMIT) continue;
      expect(countParagraphTokens(text), text.slice(0, 60)).toBe(countRaw(text, { disallowedSpecial: new Set() }));
    }
  });

  it("tokenizes only the paragraphs it has not seen: a second agent of a role costs its own lines", () => {
    const file = path.join(ROOT, "agents", "researcher.md");
    const first = systemMessage(file, 901);
    countParagraphTokens(first);
    const before = tokenizerStats.chars;
    const second = systemMessage(file, 902);
    countParagraphTokens(second);
    const counted = tokenizerStats.chars - before;
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(100);
    expect(second.length).toBeGreaterThan(1000);
  });
});

describe("messageTokens", () => {
  it("adds the per-message overhead and the tool calls", () => {
    const plain = messageTokens({ role: "user", content: "hello world" });
    expect(plain).toBe(2 + MESSAGE_OVERHEAD);
    const call = messageTokens({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] });
    expect(call).toBeGreaterThan(MESSAGE_OVERHEAD + 5);
  });
});

describe("truncateToTokens", () => {
  const note = (kept: number, total: number) => ` [${kept}/${total}]`;

  it("returns a fitting text unchanged", () => {
    expect(truncateToTokens("short text", 100, note)).toBe("short text");
  });

  it("cuts to the limit, note included, keeping the start", () => {
    const text = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(" ");
    const cut = truncateToTokens(text, 100, note)!;
    expect(countTokens(cut)).toBeLessThanOrEqual(100);
    expect(cut.startsWith("word0 word1")).toBe(true);
    expect(cut).toMatch(/\[\d+\/\d+\]$/);
  });

  it("never leaves a broken character when cutting CJK text", () => {
    const cut = truncateToTokens("配色方案设计🎨".repeat(300), 50, note)!;
    expect(cut).not.toContain("\uFFFD");
    expect(countTokens(cut)).toBeLessThanOrEqual(50);
  });

  it("returns null when not even the note fits", () => {
    expect(truncateToTokens("a ".repeat(100), 1, note)).toBeNull();
  });
});

describe("bounded work on any text", () => {
  // Texts a person or a model can send; the real tokenizer alone is quadratic on several of them.
  function randomText(length: number, from: number, span: number): string {
    let seed = 7;
    let out = "";
    for (let i = 0; i < length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out += String.fromCodePoint(from + (seed % span));
    }
    return out;
  }
  const million = 1_000_000;
  const pathological: Array<[string, string, [number, number]]> = [
    // [name, text, plausible token range]
    ["one repeated character", "x".repeat(million), [million / 16, million / 4]],
    ["two alternating characters", "xy".repeat(million / 2), [million / 8, million]],
    ["digits", "1234567890".repeat(million / 10), [million / 4, million / 2]],
    ["base64", Buffer.from(randomText(750_000, 0, 256), "latin1").toString("base64"), [million / 4, million]],
    ["a CJK run", randomText(million / 4, 0x4e00, 20_000), [million / 8, million]],
    ["spaces", " ".repeat(million), [1, million / 16]],
    ["newlines", "\n".repeat(million), [1, million / 4]],
    ["emoji", "🎨".repeat(million / 4), [million / 8, million]],
  ];

  it.each(pathological)("counts %s of ~1,000,000 characters, plausibly", (_name, text, [min, max]) => {
    const n = countTokens(text);
    expect(n).toBeGreaterThanOrEqual(min);
    expect(n).toBeLessThanOrEqual(max);
  });

  it.each(pathological)("cuts %s to a budget, note included", (_name, text) => {
    const cut = truncateToTokens(text, 1500, (kept, total) => `\n[${kept}/${total}]`)!;
    expect(cut).not.toBeNull();
    expect(countTokens(cut)).toBeLessThanOrEqual(1500);
    expect(text.startsWith(cut.slice(0, cut.lastIndexOf("\n[")).replace(/\uFFFD$/, ""))).toBe(true);
  });

  it("hands the tokenizer chunks without long runs that join back to the text", () => {
    const text = `${"x".repeat(5000)} ${"word ".repeat(2000)}${"配色".repeat(3000)}${" ".repeat(500)}end`;
    const chunks = [...tokenizerChunks(text)];
    expect(chunks.join("")).toBe(text);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(MAX_CHUNK_CHARS + 2 * MAX_RUN_CHARS);
      expect(/\S{65}|\s{65}/.test(c)).toBe(false);
    }
    // an emoji (two UTF-16 units) is never cut in half
    expect([...tokenizerChunks("🎨".repeat(1000))].every((c) => !/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(c))).toBe(true);
  });
});

describe("counts stay close to the real tokenizer", () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const repo = path.resolve(here, "..", "..");
  const exact = (text: string) => countRaw(text, { disallowedSpecial: new Set<string>() });
  const prose =
    "The Team Leader assembles a team of sub-agents from role definitions, hands them tasks, answers their questions and reports back. ";
  const samples: Array<[string, string]> = [
    ["short English prose", prose.repeat(20)],
    ["long English prose (estimated from samples)", prose.repeat(400)],
    ["this repository's README (estimated)", readFileSync(path.join(repo, "README.md"), "utf8")],
    ["TypeScript code (estimated)", readFileSync(path.join(repo, "lib/context/slices.ts"), "utf8")],
    ["TypeScript code, short", readFileSync(path.join(repo, "lib/context/index.ts"), "utf8")],
    ["Chinese text", readFileSync(path.join(repo, "lib/i18n/dictionaries/zh-cn.ts"), "utf8").slice(0, 6000)],
    ["JSON", JSON.stringify(JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")), null, 2).repeat(10)],
    // Just over the exact limit: the sample windows together are longer than the text and overlap.
    ["a capped tool result just over the exact limit", JSON.stringify({ result: `BEGIN${"x".repeat(5900)}\n…[38000 characters omitted]…\n${"x".repeat(5900)}END` })],
  ];

  it.each(samples)("%s: within 4%% of the exact count", (_name, text) => {
    const want = exact(text);
    expect(Math.abs(countTokens(text) - want) / want).toBeLessThan(0.04);
  });

  it("is exact on ordinary text below the sampling size", () => {
    const text = prose.repeat(10);
    expect(text.length).toBeLessThan(EXACT_COUNT_LIMIT);
    expect(countTokens(text)).toBe(exact(text));
  });
});

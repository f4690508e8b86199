import { afterEach, describe, expect, it, vi } from "vitest";
import { hasOwnKey } from "@/lib/own";
import { capToolOutput, cutText, jsonPrefixLength, keepWholeItems, MIN_SHAPE_CHARS, OMITTED_KEYS_KEY, shapeJson, type JsonValue, type ShapeMeter } from "./shape";
import { rng } from "@/test/helpers/rng";


// ASCII, JSON escapes, CJK, emoji (surrogate pairs), lone surrogates, line separators.
const ALPHABET = ["a", "b", "z", " ", "0", '"', "\\", "\n", "\t", "\u0001", "\u007f", "中", "文", "字", "🎨", "😀", "\ud800", "\udc00", "\u2028", "é", "…"];

function randomString(rand: () => number, max: number): string {
  const n = Math.floor(rand() * max);
  let s = "";
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)]!;
  return s;
}

function randomValue(rand: () => number, depth: number): JsonValue {
  const x = rand();
  if (depth <= 0 || x < 0.3) {
    const y = rand();
    if (y < 0.15) return null;
    if (y < 0.3) return rand() < 0.5;
    if (y < 0.5) return Math.floor(rand() * 1e9) / (rand() < 0.5 ? 1 : 7);
    if (y < 0.55) return randomString(rand, 40_000);
    return randomString(rand, 60);
  }
  if (x < 0.65) {
    const n = rand() < 0.1 ? Math.floor(rand() * 3000) : Math.floor(rand() * 12);
    return Array.from({ length: n }, () => randomValue(rand, depth - 1));
  }
  const n = rand() < 0.05 ? Math.floor(rand() * 500) : Math.floor(rand() * 8);
  const out: { [k: string]: JsonValue } = {};
  for (let i = 0; i < n; i++) out[rand() < 0.05 ? randomString(rand, 400) : `k${i}_${randomString(rand, 6)}`] = randomValue(rand, depth - 1);
  return out;
}

const CUT = /…\[cut (\d+) chars\]$/;
const MORE_ITEMS = /^…\[(\d+) more items? not shown\]$/;
const MORE_KEYS = /^(\d+) more keys? not shown$/;

/**
 * Asserts that `out` is `input` shrunk by the rules, nothing invented: a string is itself or a
 * prefix plus the cut marker counting what went; an array keeps whole items from the start (the
 * first may be shrunk when it is the only one) and counts the rest; an object keeps keys in
 * order, values shrunk, and counts the keys left out.
 */
function assertShrunkFrom(out: unknown, input: JsonValue, at = "$"): void {
  if (typeof input === "string") {
    expect(typeof out, at).toBe("string");
    if (out === input) return;
    const m = CUT.exec(out as string);
    expect(m, `${at}: cut marker`).not.toBeNull();
    const kept = (out as string).slice(0, (out as string).length - m![0].length);
    expect(input.startsWith(kept), `${at}: a prefix`).toBe(true);
    // never half a surrogate pair
    const end = kept.charCodeAt(kept.length - 1);
    if (end >= 0xd800 && end <= 0xdbff) expect((input.charCodeAt(kept.length) & 0xfc00) === 0xdc00, `${at}: pair split`).toBe(false);
    expect(Number(m![1]), `${at}: count`).toBe(input.length - kept.length);
    return;
  }
  if (Array.isArray(input)) {
    expect(Array.isArray(out), at).toBe(true);
    const items = out as unknown[];
    const last = items.at(-1);
    const marker = typeof last === "string" && items.length > 0 ? MORE_ITEMS.exec(last) : null;
    const shown = marker ? items.length - 1 : items.length;
    if (marker) expect(shown + Number(marker[1]), `${at}: counted`).toBe(input.length);
    else expect(items.length, `${at}: all items`).toBe(input.length);
    for (let i = 0; i < shown; i++) {
      if (shown === 1 && i === 0) assertShrunkFrom(items[0], input[0]!, `${at}[0]`);
      else expect(items[i], `${at}[${i}] whole`).toEqual(input[i]);
    }
    return;
  }
  if (input !== null && typeof input === "object") {
    expect(out !== null && typeof out === "object" && !Array.isArray(out), at).toBe(true);
    const o = out as Record<string, unknown>;
    const inKeys = Object.keys(input);
    const outKeys = Object.keys(o).filter((k) => !(k === OMITTED_KEYS_KEY && !hasOwnKey(input, k)));
    let from = 0;
    for (const k of outKeys) {
      const idx = inKeys.indexOf(k, from);
      expect(idx, `${at}.${k} in order`).toBeGreaterThanOrEqual(0);
      from = idx + 1;
      assertShrunkFrom(o[k], input[k]!, `${at}.${k}`);
    }
    if (outKeys.length < inKeys.length) {
      const m = MORE_KEYS.exec(String(o[OMITTED_KEYS_KEY]));
      expect(m, `${at}: key count`).not.toBeNull();
      expect(Number(m![1])).toBe(inKeys.length - outKeys.length);
    }
    return;
  }
  expect(out, at).toBe(input);
}

describe("capToolOutput: text that is not JSON", () => {
  it("leaves text within the cap alone", () => {
    expect(capToolOutput("", 64)).toBe("");
    expect(capToolOutput("hello", 64)).toBe("hello");
    expect(capToolOutput("x".repeat(100), 100)).toBe("x".repeat(100));
  });

  it("cuts long text with a marker, the whole within the cap", () => {
    const big = "x".repeat(100_000);
    const capped = capToolOutput(big, 4000);
    // as much text as the cap leaves once the marker is in
    expect(capped).toBe(`${"x".repeat(3964)}\n…[truncated: 96036 more characters]`);
    expect(capped).toHaveLength(4000);
    const words = "plain words ".repeat(50);
    expect(capToolOutput(words, 64)).toBe(`${words.slice(0, 30)}\n…[truncated: 570 more characters]`);
  });

  it("never splits a surrogate pair", () => {
    for (let cut = 64; cut < 80; cut++) {
      const out = capToolOutput("🎨".repeat(200), cut);
      expect(out.length).toBeLessThanOrEqual(cut);
      expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
      expect(out.startsWith("🎨")).toBe(true);
    }
  });

  it("cuts text that only looks like JSON as text", () => {
    const out = capToolOutput(`[INFO] ${"log line ".repeat(100)}`, 100);
    expect(out.startsWith("[INFO] log line")).toBe(true);
    expect(out).toMatch(/\n…\[truncated: \d+ more characters\]$/);
    expect(cutText("abc", 64)).toBe("abc");
  });

  it("refuses a nonsensical cap", () => {
    expect(() => capToolOutput("x", -1)).toThrow(RangeError);
    expect(() => capToolOutput("x", 1.5)).toThrow(RangeError);
    expect(() => shapeJson("x", Number.NaN)).toThrow(RangeError);
  });

  it("a cap too small for the marker still holds: the text's beginning and …", () => {
    expect(capToolOutput("hello world", 5)).toBe("hell…");
    expect(capToolOutput("ab🎨cd".repeat(3), 4)).toBe("ab…");
    expect(capToolOutput("abc", 0)).toBe("");
  });
});

describe("capToolOutput: JSON is shrunk by its structure", () => {
  const matches = Array.from({ length: 5000 }, (_, i) => ({ path: `src/file${i % 97}.ts`, line: i + 1, text: `const atomic${i} = writeAtomic("${i}");` }));
  const search = JSON.stringify({ query: "atomic", matches, truncated: false });

  it("a search result keeps whole matches and counts the rest, where slicing left broken JSON", () => {
    const out = capToolOutput(search, 12_000);
    expect(out.length).toBeLessThanOrEqual(12_000);
    const parsed = JSON.parse(out) as { query: string; matches: unknown[]; truncated: boolean };
    expect(parsed.query).toBe("atomic");
    expect(parsed.truncated).toBe(false);
    const last = parsed.matches.at(-1) as string;
    const shown = parsed.matches.length - 1;
    expect(last).toBe(`…[${5000 - shown} more items not shown]`);
    expect(shown).toBeGreaterThan(100);
    expect(parsed.matches.slice(0, shown)).toEqual(matches.slice(0, shown));
    // as full as it can be: one more match would not fit
    expect(out.length + JSON.stringify(matches[shown]).length + 1).toBeGreaterThan(12_000);
  });

  it("cuts a huge string value with a count, keeping the small fields whole", () => {
    const content = "中文🎨 and \"quotes\"\n".repeat(20_000);
    const out = capToolOutput(JSON.stringify({ path: "a.md", content, size: 123, truncated: false }), 5000);
    expect(out.length).toBeLessThanOrEqual(5000);
    const parsed = JSON.parse(out) as { path: string; content: string; size: number; truncated: boolean };
    expect(parsed).toMatchObject({ path: "a.md", size: 123, truncated: false });
    assertShrunkFrom(parsed.content, content);
    expect(out.length).toBeGreaterThan(4970);
  });

  it("an array whose first item alone is too big keeps that item shrunk, and counts the rest", () => {
    const value = ["x".repeat(50_000), "small", { a: 1 }];
    const out = shapeJson(value, 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    const parsed = JSON.parse(out) as string[];
    expect(parsed).toHaveLength(2);
    expect(parsed[0]).toMatch(/^x+…\[cut \d+ chars\]$/);
    expect(parsed[1]).toBe("…[2 more items not shown]");
    assertShrunkFrom(parsed, value);
  });

  it("a string of emoji and CJK cut at every cap: within it, never half a pair", () => {
    const value = { text: "🎨中😀文".repeat(400) };
    for (let cap = MIN_SHAPE_CHARS; cap < 140; cap++) {
      const out = shapeJson(value, cap);
      expect(out.length, `cap ${cap}`).toBeLessThanOrEqual(cap);
      const parsed = JSON.parse(out) as { text: string };
      assertShrunkFrom(parsed, value, `cap ${cap}`);
      expect(parsed.text).not.toMatch(/[\ud800-\udbff]…/);
    }
  });

  it("a top-level string stays a JSON string", () => {
    const out = capToolOutput(JSON.stringify("x".repeat(1000)), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(JSON.parse(out)).toBe(`${"x".repeat(82)}…[cut 918 chars]`);
    expect(out).toHaveLength(100);
  });

  it("an object with thousands of keys keeps those that fit and counts the others", () => {
    const wide = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`key_${i}`, i]));
    const out = capToolOutput(JSON.stringify(wide), 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    const parsed = JSON.parse(out) as Record<string, unknown>;
    assertShrunkFrom(parsed, wide);
    expect(parsed[OMITTED_KEYS_KEY]).toMatch(/^\d+ more keys not shown$/);
    expect(parsed.key_0).toBe(0);
  });

  it("a `__proto__` key is kept as data", () => {
    const text = `{"__proto__":{"x":"${"y".repeat(500)}"},"a":1}`;
    const out = capToolOutput(text, 200);
    expect(out.length).toBeLessThanOrEqual(200);
    expect(Object.keys(JSON.parse(out) as object)).toEqual(["__proto__", "a"]);
  });

  it("JSON nested past the parse limit is still valid JSON", () => {
    const deep = `${"[".repeat(200)}1${"]".repeat(200)}`;
    const out = capToolOutput(deep, 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(JSON.parse(out)).toMatch(/^\[\[\[.*…\[cut \d+ chars\]$/);
  });

  it("random JSON (nested, wide, huge strings, unicode) always gives valid JSON within the cap, shrunk and nothing invented", () => {
    for (let seed = 1; seed <= 80; seed++) {
      const rand = rng(seed);
      const value = randomValue(rand, 1 + Math.floor(rand() * 6));
      const text = JSON.stringify(value);
      const caps = [MIN_SHAPE_CHARS, 64 + Math.floor(rand() * 400), Math.floor(rand() * text.length) + MIN_SHAPE_CHARS, 12_000];
      for (const cap of caps) {
        const out = capToolOutput(text, cap);
        const at = `seed ${seed}, cap ${cap}`;
        expect(out.length, at).toBeLessThanOrEqual(cap);
        let parsed: unknown;
        expect(() => (parsed = JSON.parse(out)), at).not.toThrow();
        assertShrunkFrom(parsed, value, at);
        if (text.length <= cap) expect(out, at).toBe(text);
      }
    }
  });

  it("caps below the markers' room: never over the cap, JSON from 2 characters up", () => {
    const inputs: JsonValue[] = [{ a: "x".repeat(500), b: [1, 2, 3] }, Array.from({ length: 300 }, (_, i) => i), `中🎨${"y".repeat(400)}`, { ["k".repeat(300)]: 1 }];
    for (const value of inputs) {
      const text = JSON.stringify(value);
      for (let cap = 0; cap <= MIN_SHAPE_CHARS + 8; cap++) {
        const out = capToolOutput(text, cap);
        expect(out.length, `cap ${cap}`).toBeLessThanOrEqual(cap);
        if (cap >= 2) expect(() => JSON.parse(out), `${out} at cap ${cap}`).not.toThrow();
        if (cap >= 2) expect(Array.isArray(JSON.parse(out)), `cap ${cap}`).toBe(Array.isArray(value));
        if (cap >= MIN_SHAPE_CHARS) assertShrunkFrom(JSON.parse(out), value, `cap ${cap}`);
      }
    }
  });

  it("measures escapes as JSON.stringify writes them", () => {
    const rand = rng(7);
    for (let k = 0; k < 300; k++) {
      const s = randomString(rand, 80);
      const width = JSON.stringify(s).length - 2;
      expect(jsonPrefixLength(s, width)).toBe(s.length);
      const cut = jsonPrefixLength(s, Math.floor(width / 2));
      expect(JSON.stringify(s.slice(0, cut)).length - 2).toBeLessThanOrEqual(Math.floor(width / 2));
    }
  });
});

describe("capToolOutput: bounded work on big inputs", () => {
  let stringified = 0;
  afterEach(() => {
    vi.restoreAllMocks();
  });
  /** Counts every character JSON.stringify writes during `run`: a loop that re-serialises would multiply it. */
  function countStringify<T>(run: () => T): T {
    const original = JSON.stringify.bind(JSON);
    stringified = 0;
    vi.spyOn(JSON, "stringify").mockImplementation(((...args: Parameters<typeof JSON.stringify>) => {
      const out = original(...args);
      stringified += out?.length ?? 0;
      return out;
    }) as typeof JSON.stringify);
    try {
      return run();
    } finally {
      vi.restoreAllMocks();
    }
  }

  const FIVE_MB = 5_000_000;
  const shapes: Array<[string, () => JsonValue]> = [
    ["an array of 60,000 matches", () => ({ matches: Array.from({ length: 60_000 }, (_, i) => ({ path: `src/dir${i % 50}/file${i}.ts`, line: i, text: `x = atomic(${i}) // 中文 🎨 "q"` })) })],
    ["one 5 MB string", () => ({ path: "big.txt", content: "line of text 中文\n".repeat(FIVE_MB / 16) })],
    ["nested objects of arrays", () => Array.from({ length: 360 }, (_, i) => ({ id: i, rows: Array.from({ length: 250 }, (_, j) => ({ j, v: `value ${j} of ${i}`, tags: ["a", "b", String(i)] })) }))],
    ["an object of 180,000 keys", () => Object.fromEntries(Array.from({ length: 180_000 }, (_, i) => [`key_number_${i}`, `v${i}`]))],
    ["many medium strings", () => Array.from({ length: 2500 }, (_, i) => `${i}:${"word ".repeat(400)}`)],
  ];

  for (const [name, make] of shapes) {
    it(`${name}: work and serialisation linear in the input`, () => {
      const value = make();
      const text = JSON.stringify(value);
      expect(text.length).toBeGreaterThan(FIVE_MB * 0.9);
      const meter: ShapeMeter = { work: 0 };
      const out = countStringify(() => capToolOutput(text, 12_000, { meter }));
      expect(out.length).toBeLessThanOrEqual(12_000);
      expect(() => JSON.parse(out)).not.toThrow();
      // sizing reads each string once or twice; writing is bounded by the cap
      expect(meter.work).toBeLessThan(3 * text.length);
      expect(stringified).toBeLessThan(3 * text.length);
    });
  }
});

describe("keepWholeItems", () => {
  const build = (kept: number[], omitted: number) => ({ items: kept, ...(omitted ? { omitted, note: `${omitted} more not shown` } : {}) });

  it("keeps everything that fits, else the longest prefix with the count", () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    expect(keepWholeItems(items.slice(0, 5), 100, build)).toEqual({ value: { items: [0, 1, 2, 3, 4] }, kept: 5, fits: true });
    const r = keepWholeItems(items, 200, build);
    expect(JSON.stringify(r.value).length).toBeLessThanOrEqual(200);
    expect(r.value.items).toEqual(items.slice(0, r.kept));
    expect(r.value).toMatchObject({ omitted: 1000 - r.kept });
    expect(JSON.stringify(build(items.slice(0, r.kept + 1), 999 - r.kept)).length).toBeGreaterThan(200);
    expect(keepWholeItems(items, 10, build)).toMatchObject({ kept: 0, fits: false });
  });
});

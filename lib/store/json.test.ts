import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { toPythonJson, toPythonJsonBytes, toPythonJsonReference } from "./json";

const hasPython = spawnSync("python3", ["--version"]).status === 0;

/** Python's own `json.dumps(json.loads(text), ensure_ascii=False, indent=2)`. */
function pythonDumps(jsonText: string): string {
  const result = spawnSync(
    "python3",
    [
      "-c",
      "import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.read()), ensure_ascii=False, indent=2))",
    ],
    { input: jsonText, encoding: "utf8", env: { ...process.env, PYTHONIOENCODING: "utf-8" }, maxBuffer: 64 << 20 },
  );
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return result.stdout;
}

describe("toPythonJson", () => {
  it("writes containers with Python's indent=2 layout, empty ones inline", () => {
    expect(toPythonJson({ a: [], b: {}, c: [1, [], { d: {} }] })).toBe(
      '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    [],\n    {\n      "d": {}\n    }\n  ]\n}',
    );
    expect(toPythonJson([])).toBe("[]");
    expect(toPythonJson({})).toBe("{}");
    expect(toPythonJson("x")).toBe('"x"');
    expect(toPythonJson(null)).toBe("null");
    expect(toPythonJson({ t: true, f: false, n: null })).toBe('{\n  "t": true,\n  "f": false,\n  "n": null\n}');
  });

  it("keeps non-ASCII text as is and escapes what Python escapes", () => {
    const value = {
      chinese: "多智能体任务：设计前端",
      emoji: "done 🎉👩‍💻",
      quotes: 'say "hi"',
      backslash: "C:\\path\\to",
      controls: "a\nb\tc\rd\be\ff\u0000g\u001fh\u007f",
      separators: "line\u2028para\u2029end",
    };
    expect(toPythonJson(value)).toBe(
      "{\n" +
        '  "chinese": "多智能体任务：设计前端",\n' +
        '  "emoji": "done 🎉👩‍💻",\n' +
        '  "quotes": "say \\"hi\\"",\n' +
        '  "backslash": "C:\\\\path\\\\to",\n' +
        '  "controls": "a\\nb\\tc\\rd\\be\\ff\\u0000g\\u001fh\u007f",\n' +
        '  "separators": "line\u2028para\u2029end"\n' +
        "}",
    );
  });

  it("writes epoch seconds under float keys as Python floats and other whole numbers as ints", () => {
    const text = toPythonJson({
      created_at: 1752251700,
      pending: [{ created_at: 1752251800.25, count: 3 }],
      agent_count: 3,
      agent_ids: [1, 2, 3],
      timestamp: [1, 2.5],
      started_at: 0,
    });
    expect(text).toBe(
      "{\n" +
        '  "created_at": 1752251700.0,\n' +
        '  "pending": [\n    {\n      "created_at": 1752251800.25,\n      "count": 3\n    }\n  ],\n' +
        '  "agent_count": 3,\n' +
        '  "agent_ids": [\n    1,\n    2,\n    3\n  ],\n' +
        '  "timestamp": [\n    1.0,\n    2.5\n  ],\n' +
        '  "started_at": 0.0\n' +
        "}",
    );
  });

  it("writes fractions and exponents as Python's repr does", () => {
    const cases: Array<[number, string]> = [
      [0.1, "0.1"],
      [-2.5, "-2.5"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1.5e-7, "1.5e-07"],
      [1e21, "1e+21"],
      [2.5e30, "2.5e+30"],
      [1e16, "1e+16"],
      [123456789.125, "123456789.125"],
      [5e-324, "5e-324"],
      [1.7976931348623157e308, "1.7976931348623157e+308"],
    ];
    for (const [n, expected] of cases) expect(toPythonJson({ v: n })).toBe(`{\n  "v": ${expected}\n}`);
    expect(toPythonJson({ created_at: 1e16 })).toBe('{\n  "created_at": 1e+16\n}');
    expect(toPythonJson({ created_at: 1e15 })).toBe('{\n  "created_at": 1000000000000000.0\n}');
    expect(toPythonJson({ created_at: -0 })).toBe('{\n  "created_at": -0.0\n}');
  });

  it("drops undefined properties and refuses values JSON cannot hold", () => {
    expect(toPythonJson({ a: 1, b: undefined })).toBe('{\n  "a": 1\n}');
    expect(() => toPythonJson({ a: NaN })).toThrow(TypeError);
    expect(() => toPythonJson({ a: Infinity })).toThrow(TypeError);
    expect(() => toPythonJson({ a: () => 1 })).toThrow(TypeError);
  });

  it.skipIf(!hasPython)("matches python3 on exponent literals", () => {
    const literal =
      '{"a": 1E+21, "b": 1.5e-7, "c": -2.5E30, "d": 0.00012, "e": 1e-5, "f": 12345.678, "g": 1e300, ' +
      '"created_at": 1752251700.0, "timestamp": 1.0e3, "i": -7, "j": 0, "k": 9007199254740991}';
    expect(toPythonJson(JSON.parse(literal))).toBe(pythonDumps(literal));
  });

  it.skipIf(!hasPython)("matches python3 byte for byte on a large mixed document", () => {
    let seed = 12345;
    const rand = () => {
      // Deterministic LCG so a failure can be reproduced.
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pieces = [
      "多智能体", "团队负责人", "🎉", "👩‍💻", "\u2028", "\u2029", "\u007f", "\n", "\t", "\r", "\b", "\f", "\u0000",
      "\u001b", '"', "\\", "/", "'", " ", "abc", "Ünïcødé", "\u00a0", "\ufeff", "𝄞", "é", "\u0301", "ｆｕｌｌ",
    ];
    const randomString = () => {
      let s = "";
      const n = Math.floor(rand() * 8);
      for (let i = 0; i < n; i++) s += pieces[Math.floor(rand() * pieces.length)];
      return s;
    };
    const FLOAT_MARK = "__float__";
    const randomValue = (depth: number, key: string): { js: unknown; marked: unknown } => {
      if (key === "created_at" || key === "timestamp") {
        const whole = rand() < 0.5;
        const v = whole ? 1752251700 + Math.floor(rand() * 1e6) : 1752251700 + (Math.floor(rand() * 1e6) * 2 + 1) / 8;
        return { js: v, marked: whole ? `${FLOAT_MARK}${v}` : v };
      }
      const r = rand();
      if (depth > 3 || r < 0.3) {
        const leaf = Math.floor(rand() * 7);
        const v =
          leaf === 0
            ? randomString()
            : leaf === 1
              ? Math.floor(rand() * 2e9) - 1e9
              : leaf === 2
                ? (rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20)
                : leaf === 3
                  ? rand() < 0.5
                  : leaf === 4
                    ? null
                    : leaf === 5
                      ? []
                      : {};
        // A whole number beyond 2^53 can only have come from a float: Python must read it as one.
        const unsafeWhole = typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v);
        return { js: v, marked: unsafeWhole ? `${FLOAT_MARK}${v.toExponential()}` : v };
      }
      if (r < 0.6) {
        const js: unknown[] = [];
        const marked: unknown[] = [];
        const n = Math.floor(rand() * 6);
        for (let i = 0; i < n; i++) {
          const item = randomValue(depth + 1, "");
          js.push(item.js);
          marked.push(item.marked);
        }
        return { js, marked };
      }
      const js: Record<string, unknown> = {};
      const marked: Record<string, unknown> = {};
      const n = Math.floor(rand() * 6);
      for (let i = 0; i < n; i++) {
        const k = rand() < 0.2 ? (rand() < 0.5 ? "created_at" : "timestamp") : `k${i}${randomString()}`;
        const item = randomValue(depth + 1, k);
        js[k] = item.js;
        marked[k] = item.marked;
      }
      return { js, marked };
    };
    const js: Record<string, unknown> = {};
    const marked: Record<string, unknown> = {};
    for (let i = 0; i < 300; i++) {
      const item = randomValue(0, `entry_${i}`);
      js[`entry_${i}`] = item.js;
      marked[`entry_${i}`] = item.marked;
    }
    // Python must read whole epoch seconds as floats, as the seed writes them.
    const input = JSON.stringify(marked).replace(new RegExp(`"${FLOAT_MARK}(\\d+)"`, "g"), "$1.0")
      .replace(new RegExp(`"${FLOAT_MARK}([^"]+)"`, "g"), "$1");
    const ours = toPythonJson(js);
    expect(ours.length).toBeGreaterThan(10_000);
    expect(ours).toBe(pythonDumps(input));
    expect(toPythonJsonReference(js)).toBe(ours);
  });
});

/** A deterministic generator (mulberry32) so a failing case can be reproduced from its seed. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)] as T;
  return { next, int, pick };
}

/** Numbers where JavaScript's and Python's spellings part: exponent switch points, 2^53, -0, extremes. */
const EDGE_NUMBERS = [
  0, -0, 1, -1, 7, 1752251700, 1752251700.5, 0.1, 0.5, -2.5, 123456789.125, 1e-4, 0.00012, 9.999e-5, 1e-5, 1.5e-7, 1e-7,
  9.99e-8, 5e-324, -5e-324, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 9.999999999999998e15, 1e15,
  1e16, 1.5e16, 1e20, 1e21, -1e21, 2.5e30, 1e300, 1.7976931348623157e308, -1.7976931348623157e308, 3.14159, 100, 1e3,
];

/** Pieces of text the two writers must escape alike, lone surrogates and the placeholder included. */
const TEXT_PIECES = [
  "多智能体任务：设计前端", "团队负责人", "来自 Team Leader 的任务发布\nid: task_001\n\n", "🎉", "👩‍💻", "𝄞", "\ud800", "\udfff",
  "\udc00\ud800", "\u2028", "\u2029", "/", "</script>", "\\", '"', "'", "\u0000", "\u001f", "\u007f", "\b\f\n\r\t",
  "\u00a0", "\ufeff", "é", "e\u0301", "ｆｕｌｌ", "abc", " ", "", "1e+21", "\u0000pyjson-number\u0000", '"\u0000pyjson-number\u0000"',
];

const FLOAT_KEY_NAMES = ["created_at", "timestamp", "started_at", "finished_at"];

function randomValue(g: ReturnType<typeof generator>, depth: number): unknown {
  const r = g.next();
  if (depth > 4 || r < 0.45) {
    switch (g.int(7)) {
      case 0: {
        let s = "";
        for (let n = g.int(6); n > 0; n--) s += g.pick(TEXT_PIECES);
        return s;
      }
      case 1:
        return g.pick(EDGE_NUMBERS);
      case 2: {
        // Any finite double, from random bits.
        const view = new DataView(new ArrayBuffer(8));
        view.setUint32(0, Math.floor(g.next() * 2 ** 32));
        view.setUint32(4, Math.floor(g.next() * 2 ** 32));
        const n = view.getFloat64(0);
        return Number.isFinite(n) ? n : g.int(1000) - 500;
      }
      case 3:
        return g.int(2e9) - 1e9;
      case 4:
        return g.next() < 0.5;
      case 5:
        return null;
      default:
        return g.next() < 0.5 ? [] : {};
    }
  }
  if (r < 0.7) return Array.from({ length: g.int(6) }, () => randomValue(g, depth + 1));
  const out: Record<string, unknown> = {};
  for (let n = g.int(7); n > 0; n--) {
    const roll = g.next();
    const key =
      roll < 0.3 ? g.pick(FLOAT_KEY_NAMES) : roll < 0.35 ? "__proto__" : roll < 0.4 ? String(g.int(20)) : `${g.pick(TEXT_PIECES)}k${g.int(50)}`;
    const value = g.next() < 0.05 ? undefined : randomValue(g, depth + 1);
    // defineProperty keeps "__proto__" an ordinary own key, as JSON.parse makes it.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** A leader messages.json of `n` messages, shaped as the runtime writes it. */
function leaderFile(n: number, texts: readonly string[]): Record<string, unknown> {
  const messages = Array.from({ length: n }, (_, i) => {
    const text = texts[i % texts.length] ?? "";
    if (i % 4 === 1) {
      return {
        role: "assistant",
        content: null,
        message_id: `msg_tl_${i}`,
        tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "create_sub_agent", arguments: JSON.stringify({ role_id: "researcher", task: text.slice(0, 200) }) } }],
        metadata: { message_source: "leader", visibility: "chat", starts_work: false, usage: { prompt_tokens: 1000 + i, completion_tokens: 20 } },
      };
    }
    if (i % 4 === 2) return { role: "tool", content: text.slice(0, 500), tool_call_id: `call_${i - 1}`, message_id: `tool_${i}` };
    return {
      role: i % 4 === 0 ? "user" : "assistant",
      content: text,
      message_id: `msg_${i}`,
      metadata: { message_source: i % 4 === 0 ? "sub_agent" : "leader", visibility: "compact", starts_work: false, agent_id: (i % 7) + 1, created_at: 1752251700 + i / 4 },
    };
  });
  return {
    id: "conv_20260711_210000_001",
    title: "多智能体任务",
    created_at: "2026-07-11T21:00:00",
    updated_at: "2026-07-11T22:00:00",
    messages,
    metadata: { pending_inbox: [{ created_at: 1752251800, content: "来自 Researcher_1 的任务完成汇报" }] },
    token_statistics: { prompt_tokens: 123456, completion_tokens: 7890, total_tokens: 131346, calls: 42 },
  };
}

/** Real-world text: the product's role files and, when present, the shared corpus and seeds. */
function realWorldTexts(): string[] {
  const root = path.resolve(__dirname, "..", "..");
  const folders = [path.join(root, "agents"), path.resolve(root, "..", "shared", "corpus", "roles"), path.resolve(root, "..", "shared", "seeds")];
  const texts: string[] = [];
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder).sort()) {
      if (/\.(md|txt)$/.test(name)) texts.push(readFileSync(path.join(folder, name), "utf8"));
    }
  }
  return texts;
}

describe("toPythonJson and the reference writer", () => {
  it("agree byte for byte on 3,000 random values (edge numbers, float keys, lone surrogates, placeholders)", () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomValue(generator(seed), 0);
      const expected = toPythonJsonReference(value);
      const actual = toPythonJson(value);
      if (actual !== expected) expect({ seed, actual }).toEqual({ seed, actual: expected });
      const bytes = toPythonJsonBytes(value);
      if (!bytes.equals(Buffer.from(expected, "utf8"))) expect({ seed, bytes: bytes.toString("utf8") }).toEqual({ seed, bytes: expected });
    }
  });

  it("agree on every edge number, alone, under a float key and in nested lists under one", () => {
    for (const n of EDGE_NUMBERS) {
      for (const value of [n, { v: n }, { created_at: n }, { timestamp: [[n, [n]], { v: n, started_at: n }] }]) {
        expect(toPythonJson(value), String(n)).toBe(toPythonJsonReference(value));
        expect(toPythonJsonBytes(value).toString("utf8"), String(n)).toBe(toPythonJsonReference(value));
      }
    }
    expect(toPythonJson({ created_at: 1752251700, v: 2 ** 53, w: 1e-5, x: 1e16 })).toBe(
      '{\n  "created_at": 1752251700.0,\n  "v": 9007199254740992.0,\n  "w": 1e-05,\n  "x": 1e+16\n}',
    );
  });

  it("agree on real-world documents: role files, the seeds, and a 1,000-message leader file", () => {
    const texts = realWorldTexts();
    expect(texts.length).toBeGreaterThanOrEqual(6);
    for (const text of texts) {
      const value = { content: text, lines: text.split("\n"), created_at: text.length };
      expect(toPythonJson(value)).toBe(toPythonJsonReference(value));
    }
    const big = leaderFile(1000, texts);
    const out = toPythonJson(big);
    expect(out).toBe(toPythonJsonReference(big));
    expect(toPythonJsonBytes(big).equals(Buffer.from(out, "utf8"))).toBe(true);
    expect(out).toContain('"created_at": 1752251800.0');
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(big)));
  });

  it("agree on values outside plain JSON data, or both refuse them", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly created_at: number,
      ) {}
    }
    const sparse = [1, , 3];
    const withToJson = { a: 1, toJSON: () => "replaced" };
    const proto = JSON.parse('{"__proto__": {"created_at": 5}, "b": 1e-5}') as unknown;
    const nullProto = Object.assign(Object.create(null) as object, { created_at: 7, s: "x" });
    const accepted: unknown[] = [
      undefined, [undefined, 1], { d: new Date(0) }, new Point(1, 2), sparse, { nested: { list: [new Map([["a", 1]])] } },
      Object("boxed"), proto, nullProto, { u: undefined, created_at: 3 }, [{ created_at: 4 }, undefined],
    ];
    for (const value of accepted) {
      expect(toPythonJson(value)).toBe(toPythonJsonReference(value));
      expect(toPythonJsonBytes(value).toString("utf8")).toBe(toPythonJsonReference(value));
    }
    const refused: unknown[] = [NaN, { a: Infinity }, [1, -Infinity], { f: () => 1 }, { s: Symbol("x") }, { b: 10n }, withToJson];
    for (const value of refused) {
      expect(() => toPythonJsonReference(value)).toThrow(TypeError);
      expect(() => toPythonJson(value)).toThrow(TypeError);
      expect(() => toPythonJsonBytes(value)).toThrow(TypeError);
    }
  });
});

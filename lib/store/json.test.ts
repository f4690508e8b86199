import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { toPythonJson } from "./json";

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
  });
});

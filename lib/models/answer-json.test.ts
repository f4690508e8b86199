import { describe, expect, it } from "vitest";
import { jsonObjectIn } from "./answer-json";

describe("jsonObjectIn", () => {
  it("reads a bare object, one in prose, and a fenced one (json or not)", () => {
    expect(jsonObjectIn('{"a":1}', 100)).toEqual({ a: 1 });
    expect(jsonObjectIn('Here: {"a": {"b": 2}} done.', 100)).toEqual({ a: { b: 2 } });
    expect(jsonObjectIn('Sure.\n```json\n{"labels":["x"]}\n```\nand {"not": "this"}', 100)).toEqual({ labels: ["x"] });
    expect(jsonObjectIn('```\n{"a":1}\n```', 100)).toEqual({ a: 1 });
    expect(jsonObjectIn('```JSON\n{"a":1}\n```', 100)).toEqual({ a: 1 });
  });

  it("refuses an answer without an object, and one cut by the limit", () => {
    expect(() => jsonObjectIn("no json here", 100)).toThrow(/no JSON object/);
    expect(() => jsonObjectIn('{"a": "' + "x".repeat(200) + '"}', 50)).toThrow(/no JSON object/);
    expect(() => jsonObjectIn("{not json}", 100)).toThrow(SyntaxError);
  });

  it("stays linear on hostile answers: many unclosed fences, many braces", () => {
    const fences = "```".repeat(60_000);
    expect(() => jsonObjectIn(fences, 200_000)).toThrow(/no JSON object/);
    expect(() => jsonObjectIn("{".repeat(200_000), 200_000)).toThrow(/no JSON object/);
  });
});

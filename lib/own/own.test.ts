import { describe, expect, it } from "vitest";
import { hasOwnKey, ownValue, setOwn } from "./index";

const table: Readonly<Record<string, number>> = { a: 1, zero: 0 };
const INHERITED = ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf", "isPrototypeOf", "__defineGetter__", "toLocaleString"];

describe("own-property lookups", () => {
  it.each(INHERITED)("do not find the inherited %s", (key) => {
    // eslint-disable-next-line no-restricted-syntax -- shows the hazard the helpers avoid
    expect(key in table).toBe(true);
    expect(hasOwnKey(table, key)).toBe(false);
    expect(ownValue(table, key)).toBeUndefined();
  });

  it("find own entries, falsy values included", () => {
    expect(ownValue(table, "a")).toBe(1);
    expect(ownValue(table, "zero")).toBe(0);
    expect(hasOwnKey(table, "zero")).toBe(true);
  });

  it("setOwn stores __proto__ as data, leaving the prototype alone", () => {
    const target: Record<string, unknown> = {};
    setOwn(target, "__proto__", { polluted: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect((target as { polluted?: boolean }).polluted).toBeUndefined();
    expect(hasOwnKey(target, "__proto__")).toBe(true);
    expect(Object.keys(target)).toEqual(["__proto__"]);
  });
});

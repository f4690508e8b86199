import { describe, expect, it } from "vitest";
import { isArmed, parseFailpoints } from "./failpoints";

describe("failpoints", () => {
  it("are off without a configuration", () => {
    expect(isArmed("tool.read_file", "anything", parseFailpoints(undefined))).toBe(false);
    expect(isArmed("tool.read_file", "", parseFailpoints(" , "))).toBe(false);
  });

  it("match exact names and prefixes", () => {
    const rules = parseFailpoints("agent.step, tool.*");
    expect(isArmed("agent.step", "", rules)).toBe(true);
    expect(isArmed("leader.step", "", rules)).toBe(false);
    expect(isArmed("tool.write_file", "", rules)).toBe(true);
    expect(isArmed("tools", "", rules)).toBe(false);
  });

  it("fire only on text holding the marker when one is given", () => {
    const rules = parseFailpoints("tool.*@__fault__,agent.step@__crash__");
    expect(isArmed("tool.list_files", '{"path":"__fault__"}', rules)).toBe(true);
    expect(isArmed("tool.list_files", '{"path":"."}', rules)).toBe(false);
    expect(isArmed("agent.step", "I will __crash__ now", rules)).toBe(true);
    expect(isArmed("agent.step", "__fault__", rules)).toBe(false);
  });
});

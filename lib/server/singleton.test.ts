import { describe, expect, it } from "vitest";
import { forgetProcessSingleton, keptProcessSingleton, processSingleton } from "./singleton";

describe("processSingleton", () => {
  it("makes the value once per process, whichever copy of the module asks", async () => {
    let made = 0;
    const a = processSingleton("test.one", () => ({ n: ++made }));
    // a second bundle's copy of this module is a fresh import: it finds the same value
    const copy = (await import(`./singleton?copy=${Date.now()}`)) as typeof import("./singleton");
    expect(copy.processSingleton("test.one", () => ({ n: ++made }))).toBe(a);
    expect(made).toBe(1);
    forgetProcessSingleton("test.one");
    expect(processSingleton("test.one", () => ({ n: ++made })).n).toBe(2);
  });

  it("forgets only the value it was told to, when told which", () => {
    const kept = processSingleton("test.two", () => ({}));
    forgetProcessSingleton("test.two", {});
    expect(processSingleton("test.two", () => ({ other: true }))).toBe(kept);
    forgetProcessSingleton("test.two", kept);
    expect(processSingleton("test.two", () => ({ other: true }))).not.toBe(kept);
  });

  it("tells what is kept without making it", () => {
    expect(keptProcessSingleton("test.three")).toBeUndefined();
    const kept = processSingleton("test.three", () => ({}));
    expect(keptProcessSingleton("test.three")).toBe(kept);
    forgetProcessSingleton("test.three");
    expect(keptProcessSingleton("test.three")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { elidedMarker, OutputCollector } from "./output";

describe("OutputCollector", () => {
  it("keeps a short output whole", () => {
    const c = new OutputCollector(100);
    c.add("hello ");
    c.add("world");
    expect(c.text()).toBe("hello world");
    expect(c.truncated).toBe(false);
  });

  it("keeps the head and the tail of a long output, the middle elided with a marker", () => {
    const c = new OutputCollector(20);
    for (let i = 0; i < 100; i++) c.add(String(i % 10));
    expect(c.truncated).toBe(true);
    expect(c.total).toBe(100);
    expect(c.text()).toBe(`0123456789${elidedMarker(80)}0123456789`);
  });

  it("keeps the tail right across chunks of any size", () => {
    const c = new OutputCollector(10);
    c.add("HEAD!");
    c.add("x".repeat(1000));
    c.add("TAIL!");
    expect(c.text()).toBe(`HEAD!${elidedMarker(1000)}TAIL!`);
  });
});

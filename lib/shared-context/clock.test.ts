import { describe, expect, it } from "vitest";
import { RequestClock } from "./clock";

describe("the request clock", () => {
  it("follows the wall clock, and never goes back when it is set back", () => {
    let wall = 10_000;
    const clock = new RequestClock(() => wall);
    expect(clock.now().getTime()).toBe(10_000);
    wall = 12_000;
    expect(clock.now().getTime()).toBe(12_000);
    wall = 5_000; // NTP set the clock back
    expect(clock.now().getTime()).toBe(12_000);
    wall = 13_000;
    expect(clock.now().getTime()).toBe(13_000);
  });

  it("is one clock per instance: another process (or test) has its own", () => {
    let wall = 20_000;
    const a = new RequestClock(() => wall);
    a.now();
    wall = 1_000;
    expect(new RequestClock(() => wall).now().getTime()).toBe(1_000);
  });
});

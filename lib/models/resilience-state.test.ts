import { describe, expect, it } from "vitest";
import { CircuitBreaker, endpointKey } from "./breaker";
import type { ModelHealth } from "./resilience";
import { Resilience } from "./resilience-state";

function fail(b: CircuitBreaker) {
  b.tryAcquire()!.done("failure", "HTTP 500");
}

describe("a resilience state", () => {
  it("shares one breaker per endpoint, keyed without credentials, query or trailing slash", () => {
    const r = new Resilience();
    const a = r.breakerFor("http://user:secret@127.0.0.1:9/v1/?key=x", { threshold: 1 });
    const b = r.breakerFor("http://127.0.0.1:9/v1");
    expect(a).toBe(b);
    expect(endpointKey("https://u:p@api.example.com/v1/#h")).toBe("https://api.example.com/v1");
    fail(a);
    const states = r.status().breakers;
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ endpoint: "http://127.0.0.1:9/v1", state: "open" });
    expect(JSON.stringify(states)).not.toContain("secret");
  });

  it("keeps one semaphore per model key and follows max_concurrency edits", () => {
    const r = new Resilience();
    const a = r.semaphoreFor("qwen", 4);
    expect(r.semaphoreFor("qwen", 4)).toBe(a);
    r.semaphoreFor("qwen", 6);
    expect(a.limit).toBe(6);
    r.semaphoreFor("local", 2);
    expect(r.status().semaphores).toEqual({ qwen: { limit: 6, active: 0, waiting: 0 }, local: { limit: 2, active: 0, waiting: 0 } });
  });

  it("two states share nothing: another process's (or test's) breakers and limits are its own", () => {
    const one = new Resilience();
    const two = new Resilience();
    fail(one.breakerFor("http://127.0.0.1:9/v1", { threshold: 1 }));
    expect(two.breakerFor("http://127.0.0.1:9/v1", { threshold: 1 }).state).toBe("closed");
    expect(two.semaphoreFor("qwen", 1)).not.toBe(one.semaphoreFor("qwen", 1));
  });

  it("reports a failure always and an ok only after something else, per model and caller", () => {
    const r = new Resilience();
    expect(r.isNews("m\u0000c1", "ok")).toBe(false);
    expect(r.isNews("m\u0000c1", "degraded")).toBe(true);
    expect(r.isNews("m\u0000c2", "ok")).toBe(false);
    expect(r.isNews("m\u0000c1", "ok")).toBe(true);
    expect(r.isNews("m\u0000c1", "ok")).toBe(false);
    const seen: ModelHealth[] = [];
    const off = r.subscribeHealth((h) => seen.push(h));
    expect(r.listeners()).toHaveLength(1);
    off();
    expect(r.listeners()).toHaveLength(0);
  });
});

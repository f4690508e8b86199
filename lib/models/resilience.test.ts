import { beforeEach, describe, expect, it } from "vitest";
import { CircuitBreaker } from "./breaker";
import {
  CircuitOpenError,
  createResilientModel,
  endpointOutcome,
  TIER_DEADLINES_MS,
  tierDeadline,
  tierOf,
  wrapWithResilience,
  type ModelHealth,
} from "./resilience";
import type { ModelEntry, ModelsFile } from "./schema";
import { Semaphore } from "./semaphore";
import { Resilience } from "./resilience-state";
import { ModelCallError, type ChatDelta, type ChatModel, type ChatRequest, type ChatResult } from "./types";

const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: "user", content: "hi" }],
  thinking: "off",
  meta: { conversation_id: "c1", agent_id: 2, trace_id: "t1" },
  ...extra,
});

const result = (content: string, model = "m"): ChatResult => ({ content, reasoning: "", tool_calls: [], usage: null, finish_reason: "stop", model });

/** A scripted model: each call takes the next step (a result, an error, or a function). */
function scripted(key: string, steps: Array<ChatResult | ModelCallError | ((req: ChatRequest, onDelta?: (d: ChatDelta) => void) => Promise<ChatResult>)>) {
  const calls: ChatRequest[] = [];
  const model: ChatModel & { calls: ChatRequest[] } = {
    key,
    label: key,
    offline: false,
    calls,
    async stream(req, onDelta) {
      calls.push(req);
      const step = steps.length > 1 ? steps.shift()! : steps[0]!;
      if (typeof step === "function") return step(req, onDelta);
      if (step instanceof ModelCallError) throw step;
      return step;
    },
  };
  return model;
}

function entry(overrides: Partial<ModelEntry> = {}): ModelEntry {
  return { provider: "openai-compatible", base_url: "http://127.0.0.1:1/v1", model: "m", thinking_style: "none", max_concurrency: 4, ...overrides };
}

const serverDown = () => new ModelCallError("server", "HTTP 500 after 4 attempts", { httpStatus: 500 });

/** A fresh resilience state per test: no breaker or semaphore is shared between tests. */
let resilience = new Resilience();
beforeEach(() => {
  resilience = new Resilience();
});

describe("deadline tiers", () => {
  it("maps tiers to 2 s / 5 s / 15 s, offline defaults to fast, others to normal", () => {
    expect(TIER_DEADLINES_MS).toEqual({ fast: 2_000, normal: 5_000, heavy: 15_000 });
    expect(tierDeadline(entry())).toBe(5_000);
    expect(tierDeadline(entry({ tier: "fast" }))).toBe(2_000);
    expect(tierDeadline(entry({ tier: "heavy" }))).toBe(15_000);
    expect(tierOf(entry({ provider: "offline" }))).toBe("fast");
  });

  it("timeouts.first_response_ms overrides the tier", () => {
    expect(tierDeadline(entry({ tier: "heavy", timeouts: { first_response_ms: 700 } }))).toBe(700);
  });
});

describe("endpointOutcome", () => {
  it("counts endpoint failures only; a 4xx proves the endpoint is up; aborts say nothing", () => {
    for (const reason of ["timeout", "stalled", "server", "network", "rate_limited"] as const) {
      expect(endpointOutcome(new ModelCallError(reason, "x"))).toBe("failure");
    }
    expect(endpointOutcome(new ModelCallError("client", "404", { httpStatus: 404 }))).toBe("success");
    expect(endpointOutcome(new ModelCallError("client", "no key"))).toBe("neutral");
    expect(endpointOutcome(new ModelCallError("aborted", "stopped"))).toBe("neutral");
    expect(endpointOutcome(new Error("callback threw"))).toBe("neutral");
    expect(endpointOutcome(new CircuitOpenError("k", "e", 10))).toBe("neutral");
  });
});

describe("createResilientModel", () => {
  it("passes a success through and keeps the primary's identity", async () => {
    const primary = scripted("p", [result("hello")]);
    const model = createResilientModel(resilience, "p", entry(), primary, { breaker: null, semaphore: new Semaphore(1) });
    expect(await model.stream(ask())).toMatchObject({ content: "hello" });
    expect([model.key, model.label, model.offline]).toEqual(["p", "p", false]);
  });

  it("uses the fallback once when the primary fails with a retryable failure, and reports degraded", async () => {
    const primary = scripted("p", [new ModelCallError("timeout", "did not answer within 2000 ms after 4 attempts")]);
    const fb = scripted("local", [result("from fallback", "local-model")]);
    const health: ModelHealth[] = [];
    const model = createResilientModel(resilience, "p", entry({ fallback: "local" }), primary, {
      breaker: null,
      fallback: async () => fb,
      onHealth: (h) => health.push(h),
    });
    const res = await model.stream(ask());
    expect(res.content).toBe("from fallback");
    expect(fb.calls).toHaveLength(1);
    expect(health).toHaveLength(1);
    expect(health[0]).toMatchObject({ model_key: "p", state: "degraded", reason: "timeout", fallback_key: "local", meta: { conversation_id: "c1", agent_id: 2 } });
  });

  it("reports ok once after a degraded period, per caller", async () => {
    const primary = scripted("p", [serverDown(), result("back"), result("again")]);
    const fb = scripted("local", [result("fb")]);
    const health: ModelHealth[] = [];
    const model = createResilientModel(resilience, "p", entry({ fallback: "local" }), primary, { breaker: null, fallback: async () => fb, onHealth: (h) => health.push(h) });
    await model.stream(ask());
    await model.stream(ask());
    await model.stream(ask());
    expect(health.map((h) => h.state)).toEqual(["degraded", "ok"]);
  });

  it("does not fall back after something was streamed, nor for client errors or aborts", async () => {
    const partial = new ModelCallError("network", "cut mid-stream", { partial: result("half") });
    const primary = scripted("p", [
      async (_req, onDelta) => {
        onDelta?.({ type: "content", text: "half" });
        throw partial;
      },
      new ModelCallError("client", "HTTP 400", { httpStatus: 400 }),
      new ModelCallError("aborted", "stopped"),
    ]);
    const fb = scripted("local", [result("fb")]);
    const model = createResilientModel(resilience, "p", entry({ fallback: "local" }), primary, { breaker: null, fallback: async () => fb });
    await expect(model.stream(ask(), () => undefined)).rejects.toBe(partial);
    await expect(model.stream(ask())).rejects.toMatchObject({ reason: "client" });
    await expect(model.stream(ask())).rejects.toMatchObject({ reason: "aborted" });
    expect(fb.calls).toHaveLength(0);
  });

  it("hands back an onDelta error untouched", async () => {
    const oops = new Error("ui broke");
    const primary = scripted("p", [
      async (_req, onDelta) => {
        onDelta?.({ type: "content", text: "x" });
        return result("x");
      },
    ]);
    const model = createResilientModel(resilience, "p", entry(), primary, { breaker: null });
    await expect(
      model.stream(ask(), () => {
        throw oops;
      }),
    ).rejects.toBe(oops);
  });

  it("without a fallback rethrows the failure and reports degraded", async () => {
    const primary = scripted("p", [serverDown()]);
    const health: ModelHealth[] = [];
    const off = resilience.subscribeHealth((h) => health.push(h));
    try {
      const model = createResilientModel(resilience, "p", entry(), primary, { breaker: null });
      await expect(model.stream(ask())).rejects.toMatchObject({ reason: "server" });
    } finally {
      off();
    }
    expect(health).toEqual([expect.objectContaining({ model_key: "p", state: "degraded", reason: "server" })]);
    expect(health[0]!.fallback_key).toBeUndefined();
  });

  it("when the fallback fails too, the error names both", async () => {
    const model = createResilientModel(resilience, "p", entry({ fallback: "local" }), scripted("p", [serverDown()]), {
      breaker: null,
      fallback: async () => scripted("local", [new ModelCallError("network", "local is off")]),
    });
    const error = (await model.stream(ask()).catch((e: unknown) => e)) as ModelCallError;
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.reason).toBe("network");
    expect(error.message).toContain("HTTP 500");
    expect(error.message).toContain('fallback "local" failed too: local is off');
  });

  it("opens the circuit after N failed calls, then fails fast without calling the primary, and recovers via a probe", async () => {
    let t = 0;
    const breaker = new CircuitBreaker("http://down/v1", { threshold: 3, cooldownMs: 1_000, now: () => t });
    const primary = scripted("p", [serverDown(), serverDown(), serverDown(), result("up again")]);
    const health: ModelHealth[] = [];
    const model = createResilientModel(resilience, "p", entry(), primary, { breaker, onHealth: (h) => health.push(h) });
    for (let i = 0; i < 3; i++) await expect(model.stream(ask())).rejects.toMatchObject({ reason: "server" });
    expect(breaker.state).toBe("open");
    const fast = await model.stream(ask()).catch((e: unknown) => e);
    expect(fast).toBeInstanceOf(CircuitOpenError);
    expect(fast).toBeInstanceOf(ModelCallError);
    expect((fast as CircuitOpenError).message).toMatch(/^circuit_open: http:\/\/down\/v1/);
    expect(primary.calls).toHaveLength(3);
    expect(health.at(-1)).toMatchObject({ state: "circuit_open", reason: "circuit_open" });
    t += 1_000;
    expect(await model.stream(ask())).toMatchObject({ content: "up again" });
    expect(breaker.state).toBe("closed");
    expect(health.at(-1)).toMatchObject({ state: "ok" });
  });

  it("with the circuit open, goes straight to the fallback", async () => {
    const breaker = new CircuitBreaker("e", { threshold: 1, cooldownMs: 60_000 });
    const primary = scripted("p", [serverDown()]);
    const fb = scripted("local", [result("fb")]);
    const health: ModelHealth[] = [];
    const model = createResilientModel(resilience, "p", entry({ fallback: "local" }), primary, { breaker, fallback: async () => fb, onHealth: (h) => health.push(h) });
    await model.stream(ask());
    await model.stream(ask({ meta: { conversation_id: "c2", agent_id: 1 } }));
    expect(primary.calls).toHaveLength(1);
    expect(fb.calls).toHaveLength(2);
    expect(health.at(-1)).toMatchObject({ state: "degraded", reason: "circuit_open", fallback_key: "local" });
  });

  it("never runs more calls at once than max_concurrency; an aborted waiter gets `aborted`", async () => {
    let inFlight = 0;
    let max = 0;
    const primary = scripted("p", [
      async () => {
        inFlight += 1;
        max = Math.max(max, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight -= 1;
        return result("ok");
      },
    ]);
    const model = createResilientModel(resilience, "p", entry({ max_concurrency: 3 }), primary, { breaker: null });
    const all = await Promise.all(Array.from({ length: 50 }, () => model.stream(ask())));
    expect(all).toHaveLength(50);
    expect(max).toBe(3);

    const slow = createResilientModel(resilience, "s", entry({ max_concurrency: 1 }), scripted("s", [() => new Promise((r) => setTimeout(() => r(result("slow")), 50))]), { breaker: null });
    const first = slow.stream(ask());
    const controller = new AbortController();
    const waiting = slow.stream(ask({ signal: controller.signal }));
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ reason: "aborted" });
    await expect(first).resolves.toMatchObject({ content: "slow" });
  });
});

describe("wrapWithResilience", () => {
  it("builds the fallback entry from the registry, once, with no fallback of its own", async () => {
    const registry: ModelsFile = {
      default: "p",
      models: {
        p: entry({ fallback: "local", base_url: "http://p.example/v1" }),
        local: entry({ fallback: "p", base_url: "http://local.example/v1" }),
      },
    };
    const made: string[] = [];
    const bare: Record<string, ChatModel> = {
      p: scripted("p", [serverDown()]),
      local: scripted("local", [serverDown()]),
    };
    const model = wrapWithResilience(resilience, "p", registry.models.p!, registry, (k) => (made.push(k), bare[k]!));
    await expect(model.stream(ask())).rejects.toMatchObject({ message: expect.stringContaining('fallback "local" failed too') });
    await expect(model.stream(ask())).rejects.toBeInstanceOf(ModelCallError);
    expect(made).toEqual(["p", "local"]);
    // The fallback's own fallback ("p") was never called: no loop.
    expect((bare.p as ChatModel & { calls: unknown[] }).calls).toHaveLength(2);
  });

  it("leaves an entry without a registered fallback alone", async () => {
    const registry: ModelsFile = { default: "p", models: { p: entry({ fallback: "missing" }) } };
    const model = wrapWithResilience(resilience, "p", registry.models.p!, registry, () => scripted("p", [serverDown()]));
    await expect(model.stream(ask())).rejects.toMatchObject({ reason: "server" });
  });
});

describe("who answered, at what prices", () => {
  const priced = { input: 3, cached_input: 0.3, output: 15 };

  it("stamps the primary's answer with its key and prices, and a fallback's with the fallback's", async () => {
    const registry: ModelsFile = {
      default: "p",
      models: { p: entry({ fallback: "cheap", base_url: "http://p.example/v1", prices: priced }), cheap: entry({ base_url: "http://cheap.example/v1", prices: { input: 0.1, output: 0.4 } }) },
    };
    const bare: Record<string, ChatModel> = { p: scripted("p", [result("from p"), serverDown()]), cheap: scripted("cheap", [result("from cheap")]) };
    const model = wrapWithResilience(resilience, "p", registry.models.p!, registry, (k) => bare[k]!);
    await expect(model.stream(ask())).resolves.toMatchObject({ content: "from p", answered_by: { key: "p", prices: priced } });
    await expect(model.stream(ask())).resolves.toMatchObject({ content: "from cheap", answered_by: { key: "cheap", prices: { input: 0.1, output: 0.4 } } });
  });

  it("says no prices for an entry without them, and for the offline model whatever its entry says", async () => {
    const registry: ModelsFile = {
      default: "p",
      models: { p: entry({ fallback: "offline" }), offline: { ...entry(), provider: "offline", prices: { input: 1, output: 1 } } },
    };
    const bare: Record<string, ChatModel> = { p: scripted("p", [result("from p"), serverDown()]), offline: scripted("offline", [result("offline answer")]) };
    const model = wrapWithResilience(resilience, "p", registry.models.p!, registry, (k) => bare[k]!);
    await expect(model.stream(ask())).resolves.toMatchObject({ answered_by: { key: "p", prices: null } });
    await expect(model.stream(ask())).resolves.toMatchObject({ content: "offline answer", answered_by: { key: "offline", prices: null } });
  });

  it("names a bare fallback handed in by the caller, without prices", async () => {
    const model = createResilientModel(resilience, "p", entry({ fallback: "b", prices: priced }), scripted("p", [serverDown()]), { fallback: async () => scripted("b", [result("from b")]) });
    await expect(model.stream(ask())).resolves.toMatchObject({ content: "from b", answered_by: { key: "b", prices: null } });
  });
});

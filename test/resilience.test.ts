/**
 * The resilience layer around the real OpenAI-compatible client and the real `openai` SDK, against
 * fake endpoints over HTTP: a first response past the tier deadline is retried, then the entry's
 * fallback answers and health says degraded; an endpoint that is down opens its circuit (later
 * calls never reach it) and a probe after the cool-down closes it; `max_concurrency` holds under 50
 * parallel callers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIModel } from "@/lib/models/client";
import { createOfflineModel } from "@/lib/offline-model";
import { CircuitOpenError, tierDeadline, wrapWithResilience, type ModelHealth } from "@/lib/models/resilience";
import { Resilience } from "@/lib/models/resilience-state";
import type { ModelEntry, ModelsFile } from "@/lib/models/schema";
import type { ChatModel, ChatRequest } from "@/lib/models/types";
import { fakeError, fakeText, startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { failure } from "./helpers/expect-failure";

const ENV = { FAKE_API_KEY: "sk-test-resilience-0001" };
let primary: FakeOpenAI;
let backup: FakeOpenAI;

const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [{ role: "user", content: "Check the payment module" }],
  thinking: "off",
  meta: { conversation_id: "conv-r", agent_id: 1, trace_id: "trace-r" },
  ...extra,
});

function entry(fake: FakeOpenAI, overrides: Partial<ModelEntry> = {}): ModelEntry {
  return { provider: "openai-compatible", base_url: fake.url, api_key_env: "FAKE_API_KEY", model: "fake-model", thinking_style: "none", max_concurrency: 4, ...overrides };
}

/** The breakers, semaphores and health listeners of the models under test; fresh for each test. */
let resilience = new Resilience();

/** The wiring lib/models/model-registry.ts uses, with fast retries so the test stays short. */
function wire(registry: ModelsFile, key: string, maxRetries: number, onHealth?: (h: ModelHealth) => void): ChatModel {
  return wrapWithResilience(
    resilience,
    key,
    registry.models[key]!,
    registry,
    (k, e) => (e.provider === "offline" ? createOfflineModel(k, { delayMs: 0 }) : createOpenAIModel(k, e, { env: ENV, maxRetries, retryBaseMs: 20, firstResponseTimeoutMs: tierDeadline(e) })),
    { onHealth },
  );
}


beforeAll(async () => {
  primary = await startFakeOpenAI();
  backup = await startFakeOpenAI();
});
afterAll(async () => {
  await primary.close();
  await backup.close();
});
afterEach(() => {
  primary.setHandler([]);
  primary.reset();
  backup.setHandler([]);
  backup.reset();
  resilience = new Resilience();
  delete process.env.ASTRION_BREAKER_THRESHOLD;
  delete process.env.ASTRION_BREAKER_COOLDOWN_MS;
});

describe("first-response deadline and fallback", () => {
  it("a fast-tier model silent past 2 s is retried, then its fallback answers and health says degraded", async () => {
    primary.setHandler(() => fakeText("too late", { delayMs: 2_600 }));
    backup.setHandler(() => fakeText("Answer from the local model."));
    const registry: ModelsFile = {
      default: "cloud",
      models: { cloud: entry(primary, { tier: "fast", fallback: "local" }), local: entry(backup, { tier: "fast" }) },
    };
    expect(tierDeadline(registry.models.cloud!)).toBe(2_000);
    const health: ModelHealth[] = [];
    const bus: ModelHealth[] = [];
    const off = resilience.subscribeHealth((h) => bus.push(h));
    const started = Date.now();
    const deltas: string[] = [];
    try {
      const result = await wire(registry, "cloud", 1, (h) => health.push(h)).stream(ask(), (d) => {
        if (d.type === "content") deltas.push(d.text);
      });
      expect(result.content).toBe("Answer from the local model.");
      expect(deltas.join("")).toBe("Answer from the local model.");
    } finally {
      off();
    }
    const elapsed = Date.now() - started;
    // Two attempts of 2 s each, both cut at the deadline, not at the 2.6 s the fake would take.
    expect(primary.calls).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(4_000);
    expect(elapsed).toBeLessThan(6_000);
    await expect.poll(() => primary.requests.every((r) => r.closedByClient)).toBe(true);
    expect(backup.calls).toBe(1);
    const degraded = health.find((h) => h.model_key === "cloud");
    expect(degraded).toMatchObject({ state: "degraded", reason: "timeout", fallback_key: "local", meta: { conversation_id: "conv-r", agent_id: 1, trace_id: "trace-r" } });
    expect(degraded?.message).toContain("did not answer within 2000 ms");
    expect(bus).toContainEqual(degraded);
  });

  it("the built-in offline model can be the fallback", async () => {
    primary.setHandler(() => fakeError(503, { message: "overloaded" }));
    const registry: ModelsFile = {
      default: "cloud",
      models: { cloud: entry(primary, { fallback: "offline" }), offline: { provider: "offline", model: "astrion-offline", thinking_style: "none", max_concurrency: 8 } },
    };
    const health: ModelHealth[] = [];
    const result = await wire(registry, "cloud", 0, (h) => health.push(h)).stream(ask());
    expect(result.model).toBe("astrion-offline");
    expect(primary.calls).toBe(1);
    expect(health[0]).toMatchObject({ state: "degraded", reason: "server", fallback_key: "offline" });
  });

  it("never falls back once part of the answer was streamed", async () => {
    primary.setHandler(() => fakeText("half of an answer", { contentChunks: 3, end: "destroy", chunkDelayMs: 10 }));
    backup.setHandler(() => fakeText("must not be used"));
    const registry: ModelsFile = { default: "cloud", models: { cloud: entry(primary, { fallback: "local" }), local: entry(backup) } };
    const error = await failure(wire(registry, "cloud", 2).stream(ask(), () => undefined));
    expect(error.reason).toBe("network");
    expect(error.partial?.content.length).toBeGreaterThan(0);
    expect(primary.calls).toBe(1);
    expect(backup.calls).toBe(0);
  });
});

describe("circuit breaker", () => {
  it("opens after repeated 500s, fails fast without reaching the endpoint, and closes after a successful probe", async () => {
    process.env.ASTRION_BREAKER_THRESHOLD = "3";
    process.env.ASTRION_BREAKER_COOLDOWN_MS = "800";
    primary.setHandler(() => fakeError(500, { message: "upstream exploded" }));
    const registry: ModelsFile = { default: "cloud", models: { cloud: entry(primary) } };
    const health: ModelHealth[] = [];
    const model = wire(registry, "cloud", 1, (h) => health.push(h));

    for (let i = 0; i < 3; i++) expect((await failure(model.stream(ask()))).reason).toBe("server");
    expect(primary.calls).toBe(6); // each call: first attempt + one retry
    const [state] = resilience.status().breakers;
    expect(state).toMatchObject({ endpoint: primary.url, state: "open", consecutive_failures: 3 });
    expect(health.at(-1)).toMatchObject({ state: "circuit_open", reason: "server" });

    const fastStarted = Date.now();
    for (let i = 0; i < 5; i++) {
      const error = await failure(model.stream(ask()));
      expect(error).toBeInstanceOf(CircuitOpenError);
      expect(error.message).toMatch(/^circuit_open:/);
    }
    expect(Date.now() - fastStarted).toBeLessThan(200);
    expect(primary.calls).toBe(6);
    expect(health.at(-1)).toMatchObject({ state: "circuit_open", reason: "circuit_open" });

    primary.setHandler(() => fakeText("back online", { delayMs: 150 }));
    await new Promise((r) => setTimeout(r, 850));
    expect(resilience.status().breakers[0]?.state).toBe("half_open");
    // One probe goes through; a call made while it is in flight still fails fast.
    const probe = model.stream(ask());
    const during = await failure(model.stream(ask()));
    expect(during).toBeInstanceOf(CircuitOpenError);
    expect((await probe).content).toBe("back online");
    expect(primary.calls).toBe(7);
    expect(resilience.status().breakers[0]).toMatchObject({ state: "closed", consecutive_failures: 0 });
    expect(health.at(-1)).toMatchObject({ state: "ok" });
    expect((await model.stream(ask())).content).toBe("back online");
    expect(primary.calls).toBe(8);
  });

  it("counts an unreachable endpoint (closed port) as down, and a failed probe re-opens", async () => {
    process.env.ASTRION_BREAKER_THRESHOLD = "2";
    process.env.ASTRION_BREAKER_COOLDOWN_MS = "300";
    const gone = await startFakeOpenAI();
    const url = gone.url;
    await gone.close();
    const registry: ModelsFile = { default: "cloud", models: { cloud: { ...entry(primary), base_url: url } } };
    const model = wire(registry, "cloud", 0);
    expect((await failure(model.stream(ask()))).reason).toBe("network");
    expect((await failure(model.stream(ask()))).reason).toBe("network");
    expect(await failure(model.stream(ask()))).toBeInstanceOf(CircuitOpenError);
    await new Promise((r) => setTimeout(r, 350));
    expect((await failure(model.stream(ask()))).reason).toBe("network"); // the probe
    expect(resilience.status().breakers[0]?.state).toBe("open");
    expect(await failure(model.stream(ask()))).toBeInstanceOf(CircuitOpenError);
  });
});

describe("max_concurrency", () => {
  it("never has more than 3 requests in flight at the endpoint with 50 parallel callers", async () => {
    let max = 0;
    primary.setHandler((_body, callIndex) => {
      // Requests whose response has not finished yet, this one included.
      const open = primary.requests.filter((r) => r.callIndex >= 0 && !r.completed && !r.closedByClient).length;
      max = Math.max(max, open);
      return fakeText(`answer ${callIndex}`, { delayMs: 60 });
    });
    const registry: ModelsFile = { default: "cloud", models: { cloud: entry(primary, { max_concurrency: 3 }) } };
    const model = wire(registry, "cloud", 0);
    let peakWaiting = 0;
    const timer = setInterval(() => (peakWaiting = Math.max(peakWaiting, resilience.status().semaphores.cloud?.waiting ?? 0)), 5);
    try {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => model.stream(ask({ meta: { conversation_id: `conv-${i % 7}`, agent_id: i } }))));
      expect(results.every((r) => r.content.startsWith("answer "))).toBe(true);
    } finally {
      clearInterval(timer);
    }
    expect(primary.calls).toBe(50);
    expect(max).toBe(3);
    expect(peakWaiting).toBeGreaterThan(40);
    expect(resilience.status().semaphores.cloud).toEqual({ limit: 3, active: 0, waiting: 0 });
  });
});

/**
 * The OpenAI-compatible model client against a fake endpoint over real HTTP, with the real
 * `openai` SDK: streaming, tool-call assembly, reasoning, usage, thinking parameters, retries,
 * timeouts, mid-stream failures and aborts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIModel, type OpenAIModelOptions } from "@/lib/models/client";
import type { ModelEntry } from "@/lib/models/schema";
import { MAX_EVENT_BYTES } from "@/lib/models/sse-frames";
import type { ChatDelta, ChatRequest } from "@/lib/models/types";
import { fakeError, fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { failure } from "./helpers/expect-failure";

const KEY = "sk-test-secret-value-123456";
let fake: FakeOpenAI;

function entry(overrides: Partial<ModelEntry> = {}): ModelEntry {
  return {
    label: "Fake",
    provider: "openai-compatible",
    base_url: fake.url,
    api_key_env: "FAKE_API_KEY",
    model: "fake-model",
    thinking_style: "none",
    max_concurrency: 4,
    ...overrides,
  };
}

function model(overrides: Partial<ModelEntry> = {}, opts: OpenAIModelOptions = {}) {
  return createOpenAIModel("fake", entry(overrides), { env: { FAKE_API_KEY: KEY }, retryBaseMs: 10, ...opts });
}

const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [
    { role: "system", content: "You are a test." },
    { role: "user", content: "Hi" },
  ],
  thinking: "off",
  ...extra,
});


beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setHandler([]);
  fake.reset();
});

describe("streaming", () => {
  it("delivers text as deltas and in the result, with usage, and sends the key and stream options", async () => {
    fake.enqueue(fakeText("Hello, streaming world!", { contentChunks: 4, usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 } }));
    const deltas: ChatDelta[] = [];
    const result = await model().stream(ask(), (d) => deltas.push(d));

    expect(result.content).toBe("Hello, streaming world!");
    const text = deltas.filter((d) => d.type === "content");
    expect(text.length).toBe(4);
    expect(text.map((d) => (d.type === "content" ? d.text : "")).join("")).toBe("Hello, streaming world!");
    expect(result.usage).toEqual({ prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 });
    expect(result.finish_reason).toBe("stop");
    expect(result.model).toBe("fake-model");
    expect(result.tool_calls).toEqual([]);

    const req = fake.requests[0]!;
    expect(req.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body?.stream).toBe(true);
    expect(req.body?.stream_options).toEqual({ include_usage: true });
    expect(req.body?.model).toBe("fake-model");
    expect(req.body?.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "Hi" },
    ]);
    expect(req.body).not.toHaveProperty("tools");
    // sent by the model client's own fetch over node:http (lib/models/http-fetch.ts), which asks
    // for no compression; Node's fetch would ask for gzip, deflate and br
    expect(req.headers["accept-encoding"]).toBeUndefined();
  });

  it("assembles two parallel tool calls whose arguments arrive interleaved across chunks", async () => {
    fake.enqueue(
      fakeToolCalls(
        [
          { id: "call_a", name: "list_files", arguments: { path: "src", recursive: true }, argumentChunks: 4 },
          { id: "call_b", name: "read_file", arguments: { path: "README.md" }, argumentChunks: 3 },
        ],
        { content: "Let me look." },
      ),
    );
    const deltas: ChatDelta[] = [];
    const tools = [
      { type: "function" as const, function: { name: "list_files", description: "List files", parameters: { type: "object", properties: { path: { type: "string" } } } } },
      { type: "function" as const, function: { name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } } },
    ];
    const result = await model().stream(ask({ tools }), (d) => deltas.push(d));

    expect(result.content).toBe("Let me look.");
    expect(result.finish_reason).toBe("tool_calls");
    expect(result.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "list_files", arguments: JSON.stringify({ path: "src", recursive: true }) } },
      { id: "call_b", type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: "README.md" }) } },
    ]);
    const toolDeltas = deltas.filter((d) => d.type === "tool_call");
    expect(toolDeltas.filter((d) => d.index === 0 && d.arguments_delta).length).toBe(4);
    expect(toolDeltas.find((d) => d.index === 1 && d.name)).toMatchObject({ id: "call_b", name: "read_file" });
    // The pieces of the two calls really were interleaved on the wire.
    const order = toolDeltas.filter((d) => d.arguments_delta).map((d) => d.index);
    expect(order.slice(0, 4)).toEqual([0, 1, 0, 1]);

    const body = fake.requests[0]!.body!;
    expect(body.tools).toEqual(tools);
    expect(body.tool_choice).toBe("auto");
  });

  it("captures reasoning_content as reasoning, apart from the answer", async () => {
    fake.enqueue(fakeText("42.", { reasoning: "The user wants the answer. It is 42.", reasoningChunks: 3 }));
    const deltas: ChatDelta[] = [];
    const result = await model().stream(ask(), (d) => deltas.push(d));
    expect(result.reasoning).toBe("The user wants the answer. It is 42.");
    expect(result.content).toBe("42.");
    expect(deltas.filter((d) => d.type === "reasoning").length).toBe(3);
    // Reasoning streams before the answer.
    expect(deltas[0]!.type).toBe("reasoning");
  });

  it("sends each thinking style's parameters", async () => {
    fake.setHandler(() => fakeText("ok"));
    const qwen = model({ thinking_style: "enable_thinking" });
    await qwen.stream(ask({ thinking: "off" }));
    await qwen.stream(ask({ thinking: "on" }));
    const openai = model({ thinking_style: "reasoning_effort" });
    await openai.stream(ask({ thinking: "off" }));
    await openai.stream(ask({ thinking: "on" }));
    await openai.stream(ask({ thinking: "deep" }));
    await model({ thinking_style: "none" }).stream(ask({ thinking: "deep" }));

    const bodies = fake.requests.map((r) => r.body!);
    expect(bodies[0]!.enable_thinking).toBe(false);
    expect(bodies[1]!.enable_thinking).toBe(true);
    expect(bodies.slice(2, 5).map((b) => b.reasoning_effort)).toEqual(["low", "medium", "high"]);
    expect(bodies[2]).not.toHaveProperty("enable_thinking");
    expect(bodies[5]).not.toHaveProperty("enable_thinking");
    expect(bodies[5]).not.toHaveProperty("reasoning_effort");
  });

  it("calls an endpoint without api_key_env with the dummy key", async () => {
    fake.enqueue(fakeText("local"));
    const result = await createOpenAIModel("ollama", entry({ api_key_env: undefined }), { env: {} }).stream(ask());
    expect(result.content).toBe("local");
    expect(fake.requests[0]!.authorization).toBe("Bearer not-needed");
  });
});

describe("retries", () => {
  it("waits for Retry-After after a 429, then succeeds", async () => {
    fake.enqueue(fakeError(429, { headers: { "retry-after": "1" }, message: "Rate limit reached" }), fakeText("after the wait"));
    const started = Date.now();
    const result = await model().stream(ask());
    expect(result.content).toBe("after the wait");
    expect(fake.calls).toBe(2);
    const gap = fake.requests[1]!.receivedAt - fake.requests[0]!.receivedAt;
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("retries a 500, then succeeds", async () => {
    fake.enqueue(fakeError(500, { message: "upstream exploded" }), fakeText("recovered"));
    const result = await model().stream(ask());
    expect(result.content).toBe("recovered");
    expect(fake.calls).toBe(2);
  });

  it("gives up on 5xx after maxRetries with a message naming the endpoint", async () => {
    fake.setHandler(() => fakeError(503, { message: "overloaded" }));
    const error = await failure(model({}, { maxRetries: 2 }).stream(ask()));
    expect(fake.calls).toBe(3);
    expect(error.reason).toBe("server");
    expect(error.httpStatus).toBe(503);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain(fake.url);
    expect(error.message).toContain("overloaded");
  });

  it("does not retry a 401, says which variable holds the refused key, and never shows the key", async () => {
    fake.enqueue(fakeError(401, { message: `Incorrect API key provided: ${KEY}. You can find your API key at https://example.com.` }));
    const error = await failure(model().stream(ask()));
    expect(fake.calls).toBe(1);
    expect(error.reason).toBe("client");
    expect(error.httpStatus).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("$FAKE_API_KEY");
    expect(error.message).toContain(fake.url);
    expect(error.message).not.toContain(KEY);
    expect(JSON.stringify(error.details)).not.toContain(KEY);
    expect(String(error.stack)).not.toContain(KEY);
  });

  it("does not retry a 404 and says to check the model name", async () => {
    fake.enqueue(fakeError(404, { message: "The model `nope` does not exist" }));
    const error = await failure(model({ model: "nope" }).stream(ask()));
    expect(fake.calls).toBe(1);
    expect(error.message).toMatch(/"model" and "base_url"/);
  });

  it("reports an unreachable endpoint as a network error after retrying", async () => {
    const closed = await startFakeOpenAI();
    const url = closed.url;
    await closed.close();
    const error = await failure(model({ base_url: url }, { maxRetries: 1 }).stream(ask()));
    expect(error.reason).toBe("network");
    expect(error.message).toContain("base_url");
  });
});

describe("failures in the middle of a stream", () => {
  it("cuts a stalled stream with the idle watchdog and keeps what had arrived", async () => {
    fake.enqueue(fakeText("partial answer that never ends", { contentChunks: 3, end: "stall" }));
    const deltas: ChatDelta[] = [];
    const started = Date.now();
    const error = await failure(model({}, { idleTimeoutMs: 300 }).stream(ask(), (d) => deltas.push(d)));
    const elapsed = Date.now() - started;
    expect(error.reason).toBe("stalled");
    expect(error.message).toContain("timeouts.idle_ms");
    expect(error.partial?.content).toBe("partial answer that never ends");
    expect(deltas.length).toBe(3);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
    expect(fake.calls).toBe(1);
    await expect.poll(() => fake.requests[0]!.closedByClient).toBe(true);
  });

  it("entry timeouts win over options", async () => {
    fake.enqueue(fakeText("x", { end: "stall" }));
    const started = Date.now();
    const error = await failure(model({ timeouts: { idle_ms: 200 } }, { idleTimeoutMs: 60_000 }).stream(ask()));
    expect(error.reason).toBe("stalled");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("turns a socket cut mid-stream into an error with the partial answer, without retrying", async () => {
    fake.enqueue(
      fakeToolCalls([{ id: "call_x", name: "read_file", arguments: { path: "a.txt" } }], { content: "Reading the file", end: "destroy", chunkDelayMs: 20 }),
      fakeText("must not be requested"),
    );
    const deltas: ChatDelta[] = [];
    const error = await failure(model().stream(ask(), (d) => deltas.push(d)));
    expect(error.reason).toBe("network");
    expect(error.partial?.content).toBe("Reading the file");
    expect(error.partial?.tool_calls[0]?.function.name).toBe("read_file");
    expect(error.partial?.finish_reason).toBeNull();
    expect(deltas.length).toBeGreaterThan(0);
    expect(fake.calls).toBe(1);
  });

  it("treats a stream that closes without a finish_reason as cut short, not as a complete answer", async () => {
    const piece = (args: string, first = false) => ({
      id: "c",
      object: "chat.completion.chunk",
      created: 0,
      model: "fake-model",
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...(first ? { id: "call_y", type: "function" } : {}), function: { ...(first ? { name: "write_file" } : {}), arguments: args } }] }, finish_reason: null }],
    });
    // A proxy that closes the response cleanly in the middle: no finish chunk, no [DONE].
    fake.enqueue({ kind: "raw", events: [piece('{"path":"a.txt",', true), piece('"content":"hal')], end: "close" });
    const error = await failure(model().stream(ask(), () => undefined));
    expect(error.reason).toBe("network");
    expect(error.message).toContain("before the answer was complete");
    expect(error.partial?.tool_calls[0]?.function.arguments).toBe('{"path":"a.txt","content":"hal');
    expect(fake.calls).toBe(1);
  });

  it("cuts a stream whose one event grows past MAX_EVENT_BYTES as a bad answer, without retrying", async () => {
    fake.enqueue({ kind: "raw", events: ["x".repeat(MAX_EVENT_BYTES)], end: "stall" }, fakeText("must not be requested"));
    const error = await failure(model().stream(ask(), () => undefined));
    expect(error.reason).toBe("bad_response");
    expect(error.message).toContain(`one stream event longer than ${MAX_EVENT_BYTES} bytes`);
    expect(fake.calls).toBe(1);
  });

  it("turns an in-stream error event into a server error with the partial answer", async () => {
    fake.enqueue(fakeText("half", { end: "error_event" }));
    const error = await failure(model().stream(ask(), () => undefined));
    expect(error.reason).toBe("server");
    expect(error.partial?.content).toBe("half");
    expect(fake.calls).toBe(1);
  });

  it("retries a stream that breaks before anything was streamed", async () => {
    fake.enqueue(fakeText("never seen", { end: "destroy", chunksBeforeEnd: 1 }), fakeText("second try"));
    const result = await model().stream(ask(), () => undefined);
    expect(result.content).toBe("second try");
    expect(fake.calls).toBe(2);
  });

  it("times out an endpoint that sends no headers within the first-response deadline", async () => {
    fake.enqueue(fakeText("too late", { delayMs: 3_000 }));
    const started = Date.now();
    const error = await failure(model({}, { firstResponseTimeoutMs: 300, maxRetries: 0 }).stream(ask()));
    expect(error.reason).toBe("timeout");
    expect(error.message).toContain("timeouts.first_response_ms");
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("aborts and configuration", () => {
  it("stops promptly when the caller aborts mid-stream, with the partial answer", async () => {
    fake.enqueue(fakeText("one two three four five six seven eight", { contentChunks: 8, chunkDelayMs: 150, end: "stall" }));
    const controller = new AbortController();
    const deltas: ChatDelta[] = [];
    const call = model().stream(ask({ signal: controller.signal }), (d) => {
      deltas.push(d);
      if (deltas.length === 2) setTimeout(() => controller.abort(), 0);
    });
    const error = await failure(call.finally(() => undefined));
    expect(error.reason).toBe("aborted");
    expect(error.partial?.content.length).toBeGreaterThan(0);
    await expect.poll(() => fake.requests[0]!.closedByClient).toBe(true);
    expect(fake.calls).toBe(1);
  });

  it("aborts within a second while the endpoint is still silent", async () => {
    fake.enqueue(fakeText("late", { delayMs: 5_000 }));
    const controller = new AbortController();
    const call = model().stream(ask({ signal: controller.signal }));
    await fake.waitForCalls(1);
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(call);
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(error.reason).toBe("aborted");
    expect(error.partial).toBeUndefined();
  });

  it("aborts during the wait before a retry", async () => {
    fake.enqueue(fakeError(429, { headers: { "retry-after": "30" } }));
    const controller = new AbortController();
    const call = model().stream(ask({ signal: controller.signal }));
    await fake.waitForCalls(1);
    await new Promise((r) => setTimeout(r, 50));
    const abortedAt = Date.now();
    controller.abort();
    const error = await failure(call);
    expect(error.reason).toBe("aborted");
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(fake.calls).toBe(1);
  });

  it("names the missing key variable without calling the endpoint", async () => {
    const error = await failure(createOpenAIModel("qwen3-max", entry({ api_key_env: "DASHSCOPE_API_KEY" }), { env: {} }).stream(ask()));
    expect(error.reason).toBe("client");
    expect(error.message).toContain("DASHSCOPE_API_KEY");
    expect(error.message).toContain("qwen3-max");
    expect(fake.calls).toBe(0);
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { agentTools, LEADER_TOOL_ARGS, leaderTools } from "@/lib/team-tools";
import { parseToolArguments } from "@/lib/tools";
import { formatAgentMessage } from "@/lib/contracts/messages";
import { ModelCallError, type ChatDelta, type ChatRequest, type ChatResult } from "@/lib/models/types";
import { createOfflineModel, DEFAULT_OFFLINE_DELAY_MS, OFFLINE_MODEL_LABEL, OFFLINE_MODEL_NAME } from "./index";
import { describeFile } from "./files";
import { chunkArguments, chunkText, hashText } from "./text";
import { ROLES, agentSystem } from "@/test/helpers/offline-kit";

const leaderRequest = (goal = "Research how the app stores data and write docs for it"): ChatRequest => ({
  messages: [
    { role: "system", content: "You are the Team Leader." },
    { role: "user", content: goal },
  ],
  tools: leaderTools(ROLES),
  thinking: "on",
});

const agentRequest = (): ChatRequest => ({
  messages: [agentSystem("Researcher_1", "Researcher", 1), { role: "user", content: formatAgentMessage("task", "Team Leader", "task_001", 'Goal: "Research the storage"') }],
  tools: agentTools(false),
  thinking: "on",
});

async function collect(req: ChatRequest, delayMs = 0): Promise<{ result: ChatResult; deltas: ChatDelta[] }> {
  const deltas: ChatDelta[] = [];
  const result = await createOfflineModel("offline", { delayMs }).stream(req, (d) => deltas.push(d));
  return { result, deltas };
}

describe("createOfflineModel", () => {
  afterEach(() => {
    delete process.env.ASTRION_OFFLINE_DELAY_MS;
  });

  it("describes itself as the offline model", () => {
    const m = createOfflineModel();
    expect(m.key).toBe("offline");
    expect(m.label).toBe(OFFLINE_MODEL_LABEL);
    expect(m.label).toBe("Offline (built-in)");
    expect(m.offline).toBe(true);
    expect(createOfflineModel("demo").key).toBe("demo");
  });

  it("streams content and reasoning in small pieces that concatenate to the result", async () => {
    const { result, deltas } = await collect(leaderRequest());
    const content = deltas.filter((d) => d.type === "content");
    const reasoning = deltas.filter((d) => d.type === "reasoning");
    expect(content.length).toBeGreaterThan(3);
    expect(reasoning.length).toBeGreaterThan(1);
    expect(content.map((d) => (d.type === "content" ? d.text : "")).join("")).toBe(result.content);
    expect(reasoning.map((d) => (d.type === "reasoning" ? d.text : "")).join("")).toBe(result.reasoning);
    // Reasoning comes first, then content, then tool calls.
    const firstContent = deltas.findIndex((d) => d.type === "content");
    expect(deltas.findIndex((d) => d.type === "reasoning")).toBeLessThan(firstContent);
    expect(deltas.findLastIndex((d) => d.type === "content")).toBeLessThan(deltas.findIndex((d) => d.type === "tool_call"));
    for (const d of content) if (d.type === "content") expect(d.text.trim().split(/\s+/).length).toBeLessThanOrEqual(4);
  });

  it("streams tool calls as id and name, then argument pieces forming valid JSON", async () => {
    const { result, deltas } = await collect(leaderRequest());
    expect(result.finish_reason).toBe("tool_calls");
    expect(result.tool_calls).toHaveLength(2);
    result.tool_calls.forEach((call, index) => {
      const mine = deltas.filter((d): d is Extract<ChatDelta, { type: "tool_call" }> => d.type === "tool_call" && d.index === index);
      expect(mine[0]).toEqual({ type: "tool_call", index, id: call.id, name: "create_sub_agent" });
      const args = mine.map((d) => d.arguments_delta ?? "").join("");
      expect(mine.filter((d) => d.arguments_delta !== undefined).length).toBeGreaterThan(1);
      expect(args).toBe(call.function.arguments);
      expect(() => JSON.parse(args)).not.toThrow();
      expect(call.type).toBe("function");
      expect(call.id).toMatch(/^call_off_[0-9a-f]{8}_2_\d$/);
    });
    expect(new Set(result.tool_calls.map((c) => c.id)).size).toBe(2);
  });

  it("gives no reasoning when thinking is off", async () => {
    const { result, deltas } = await collect({ ...leaderRequest(), thinking: "off" });
    expect(result.reasoning).toBe("");
    expect(deltas.some((d) => d.type === "reasoning")).toBe(false);
  });

  it("is deterministic: the same request gives the same answer and the same stream", async () => {
    const a = await collect(agentRequest());
    const b = await collect(agentRequest());
    expect(b.result).toEqual(a.result);
    expect(b.deltas).toEqual(a.deltas);
    const c = await collect(leaderRequest());
    const d = await collect(leaderRequest());
    expect(d.result).toEqual(c.result);
  });

  it("keeps tool-call ids unique along a conversation", async () => {
    const req = agentRequest();
    const first = (await collect(req)).result;
    const messages = [...req.messages, { role: "assistant" as const, content: first.content, tool_calls: first.tool_calls }];
    for (const tc of first.tool_calls) messages.push({ role: "tool", tool_call_id: tc.id, content: JSON.stringify({ path: ".", entries: [{ path: "README.md", type: "file", size: 10 }], truncated: false }) } as never);
    const second = (await collect({ ...req, messages })).result;
    const ids = [...first.tool_calls, ...second.tool_calls].map((c) => c.id);
    expect(second.tool_calls.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("estimates usage from characters", async () => {
    const req = leaderRequest();
    const { result } = await collect(req);
    const promptChars = req.messages.reduce((n, m) => n + (m.content ?? "").length, 0);
    const outChars = result.content.length + result.reasoning.length + result.tool_calls.reduce((n, t) => n + t.function.name.length + t.function.arguments.length, 0);
    expect(result.usage).toMatchObject({ prompt_tokens: Math.ceil(promptChars / 4), completion_tokens: Math.ceil(outChars / 4) });
    expect(result.usage!.total_tokens).toBe(result.usage!.prompt_tokens + result.usage!.completion_tokens);
    expect(result.model).toBe(OFFLINE_MODEL_NAME);
    expect(result.model).toBe("astrion-offline");
  });

  it("ends with stop and no tool calls when it only talks", async () => {
    const { result } = await collect({ messages: [{ role: "user", content: "hello there" }], thinking: "off" });
    expect(result.finish_reason).toBe("stop");
    expect(result.tool_calls).toEqual([]);
    expect(result.content).toContain("offline");
  });

  it("rejects at once, without a partial, when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const deltas: ChatDelta[] = [];
    const err = await createOfflineModel("offline", { delayMs: 0 })
      .stream({ ...leaderRequest(), signal: controller.signal }, (d) => deltas.push(d))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect((err as ModelCallError).reason).toBe("aborted");
    expect((err as ModelCallError).partial).toBeUndefined();
    expect(deltas).toEqual([]);
  });

  it("stops promptly mid-stream with what had streamed as the partial", async () => {
    const controller = new AbortController();
    const deltas: ChatDelta[] = [];
    const started = Date.now();
    const promise = createOfflineModel("offline", { delayMs: 20 }).stream({ ...leaderRequest(), signal: controller.signal }, (d) => {
      deltas.push(d);
      if (deltas.length === 3) controller.abort();
    });
    const err = await promise.catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(500);
    expect(err).toBeInstanceOf(ModelCallError);
    const e = err as ModelCallError;
    expect(e.reason).toBe("aborted");
    expect(e.retryable).toBe(false);
    expect(e.partial).toBeDefined();
    const streamed = deltas.map((d) => (d.type === "reasoning" ? d.text : "")).join("");
    expect(e.partial!.reasoning).toBe(streamed);
    expect(e.partial!.finish_reason).toBeNull();
  });

  it("aborts during the pause between pieces without waiting for it", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const promise = createOfflineModel("offline", { delayMs: 10_000 }).stream({ ...leaderRequest(), signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const err = await promise.catch((e: unknown) => e);
    expect((err as ModelCallError).reason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("waits between pieces, by option or ASTRION_OFFLINE_DELAY_MS", async () => {
    expect(DEFAULT_OFFLINE_DELAY_MS).toBe(25);
    const req = { messages: [{ role: "user" as const, content: "hi" }], thinking: "off" as const };
    const pieces = (await collect(req)).deltas.length;
    const t0 = Date.now();
    await collect(req, 15);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(15 * pieces - 20);
    process.env.ASTRION_OFFLINE_DELAY_MS = "0";
    const t1 = Date.now();
    await createOfflineModel().stream(leaderRequest());
    expect(Date.now() - t1).toBeLessThan(200);
  });
});

describe("offline text helpers", () => {
  it("chunks text into pieces that concatenate back exactly", () => {
    for (const text of ["", "one", "a b c d e f g", "  leading and trailing  ", "line\n\n- bullet one\n- two", "设计一个前端页面的配色方案，然后汇报。", "x".repeat(50)]) {
      expect(chunkText(text).join("")).toBe(text);
    }
    expect(chunkArguments('{"a":"设计一个前端页面的配色方案"}', 5).join("")).toBe('{"a":"设计一个前端页面的配色方案"}');
  });

  it("hashes stably", () => {
    expect(hashText("abc")).toBe(hashText("abc"));
    expect(hashText("abc")).not.toBe(hashText("abd"));
    expect(hashText("")).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe("the offline model on hostile input", () => {
  const shapes: Array<[string, string]> = [
    ["one character", "x".repeat(100_000)],
    ["many role words", "review test ui color security docs research ".repeat(2300)],
    ["a. a. a.", "a.".repeat(50_000)],
    ["CJK", "配色方案设计".repeat(16_000)],
  ];

  it.each(shapes)("plans a team for a 100,000-character goal of %s with valid task arguments", async (_name, goal) => {
    const { result } = await collect(leaderRequest(goal));
    expect(result.tool_calls.length).toBeGreaterThan(0);
    for (const call of result.tool_calls) {
      const parsed = parseToolArguments(LEADER_TOOL_ARGS.create_sub_agent, call.function.arguments);
      expect(parsed.ok).toBe(true);
    }
  });

  it("describes a hostile file of a megabyte from its start", () => {
    for (const content of ["<h1".repeat(350_000), "rgb(".repeat(250_000), "export{".repeat(150_000), "-".repeat(1_000_000), `// x${" ".repeat(1_000_000)}y`]) {
      for (const path of ["index.html", "styles.css", "a.ts", "README.md"]) expect(describeFile(path, content).finding).toMatch(/\(\d+ lines?\)/);
    }
  });
});

/**
 * Every provider profile against a fake of its server (this folder: one per provider, each
 * reproducing the server's stream and its refusals as documented), driven by the real `openai`
 * client inside the real built app: a leader delegating to two agents that each call a tool and
 * report, with thinking on. Each test also checks what only that provider's handling makes true,
 * so removing it fails the test: the fakes refuse what the real servers refuse.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeOpenAI, FakeRequestBody } from "../helpers/fake-openai";
import { seedRolesAllowingWrites } from "../helpers/roles";
import { snapshotOf, startServer, tempDir, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { startDashScopeFake } from "./dashscope";
import { startDeepSeekFake } from "./deepseek";
import { startLlamaCppFake } from "./llamacpp";
import { startLmStudioFake } from "./lmstudio";
import { startOllamaFake } from "./ollama";
import { startOpenAIFake } from "./openai";
import { isLeader } from "./scenario";
import { startVllmFake } from "./vllm";

type Msg = { role: string; content: string | null; reasoning_content?: string; tool_calls?: Array<{ id: string; function: { name: string } }>; metadata?: Record<string, unknown> };

let server: TestServer;
let project: string;
type FakeName = "openai" | "vllm" | "vllmNoTools" | "ollama" | "deepseek" | "dashscope" | "lmstudio" | "llamacpp" | "llamacppNoJinja";
const fakes = {} as Record<FakeName, FakeOpenAI>;

beforeAll(async () => {
  fakes.openai = await startOpenAIFake();
  fakes.vllm = await startVllmFake({ autoToolChoice: true, reasoningParser: false });
  fakes.vllmNoTools = await startVllmFake({ autoToolChoice: false, reasoningParser: false });
  fakes.ollama = await startOllamaFake();
  fakes.deepseek = await startDeepSeekFake();
  fakes.dashscope = await startDashScopeFake();
  fakes.lmstudio = await startLmStudioFake();
  fakes.llamacpp = await startLlamaCppFake({ jinja: true });
  fakes.llamacppNoJinja = await startLlamaCppFake({ jinja: false });
  const home = tempDir("astrion-providers-");
  seedRolesAllowingWrites(home);
  const entry = (fake: FakeOpenAI, extra: Record<string, unknown>) => ({ base_url: fake.url, api_key_env: "FAKE_PROVIDER_KEY", max_concurrency: 4, timeouts: { first_response_ms: 10_000, idle_ms: 5_000 }, ...extra });
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({
      default: "offline",
      models: {
        offline: { provider: "offline", model: "astrion-offline" },
        "o4-mini": entry(fakes.openai, { provider: "openai", model: "o4-mini" }),
        "gpt-4o": entry(fakes.openai, { provider: "openai", model: "gpt-4o", thinking_style: "reasoning_effort" }),
        vllm: entry(fakes.vllm, { provider: "vllm", model: "Qwen/Qwen3-8B", thinking_style: "enable_thinking" }),
        "vllm-no-tools": entry(fakes.vllmNoTools, { provider: "vllm", model: "Qwen/Qwen3-8B", thinking_style: "enable_thinking" }),
        ollama: entry(fakes.ollama, { provider: "ollama", model: "qwen3:1.7b", thinking_style: "enable_thinking" }),
        deepseek: entry(fakes.deepseek, { provider: "deepseek", model: "deepseek-v4-flash", thinking_style: "enable_thinking" }),
        dashscope: entry(fakes.dashscope, { provider: "dashscope", model: "qwen3-max", thinking_style: "enable_thinking" }),
        lmstudio: entry(fakes.lmstudio, { provider: "lmstudio", model: "qwen/qwen3-4b" }),
        // Not named: guessed from the server's /v1/models.
        llamacpp: entry(fakes.llamacpp, { model: "qwen3-4b-q4_k_m.gguf" }),
        "llamacpp-no-jinja": entry(fakes.llamacppNoJinja, { model: "qwen3-4b-q4_k_m.gguf" }),
      },
    }),
  );
  project = tempDir("astrion-providers-project-");
  mkdirSync(path.join(project, "src"));
  writeFileSync(path.join(project, "README.md"), "# Demo\n");
  server = await startServer({ home, env: { FAKE_PROVIDER_KEY: "sk-fake-provider-key", ASTRION_LEADER_BATCH_MS: "30" } });
});

afterAll(async () => {
  if (process.env.DEBUG_SERVER_OUTPUT) console.log(server?.output());
  await server?.stop();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

async function start(modelKey: string): Promise<string> {
  const created = await server.api("POST", "/api/conversations", { title: `team on ${modelKey}`, project_path: project, model_key: modelKey, run_mode: "thinking" });
  expect(created.status).toBe(201);
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Look at the project from two angles" })).status).toBe(202);
  return id;
}

async function leaderMessages(id: string): Promise<Msg[]> {
  return (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages;
}

async function agentMessages(id: string): Promise<Msg[][]> {
  const { agents } = (await server.api("GET", `/api/conversations/${id}/agents`)).json as { agents: Array<{ metadata: { agent_id: number } }> };
  return Promise.all(agents.map(async (a) => (await server.api("GET", `/api/conversations/${id}/agents/${a.metadata.agent_id}`)).json.messages as Msg[]));
}

/** Runs the team on `modelKey` to its summary; returns the conversation and every message. */
async function runTeam(modelKey: string, provider: string) {
  const id = await start(modelKey);
  const marker = `SUMMARY ${provider}`;
  await until(`"${marker}"`, async () => (await leaderMessages(id)).some((m) => m.role === "assistant" && String(m.content).includes(marker)), 60_000);
  const leader = await leaderMessages(id);
  const agents = await agentMessages(id);
  expect(agents).toHaveLength(2);
  for (const messages of agents) {
    const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
    expect(calls).toEqual(["list_files", "report_to_leader"]);
  }
  return { id, leader, agents, all: [...leader, ...agents.flat()] };
}

/** The team's calls a fake received (those offering tools: side jobs such as the memory distiller offer none). */
const bodies = (fake: FakeOpenAI): FakeRequestBody[] => fake.requests.filter((r) => r.callIndex >= 0 && r.body?.tools?.length).map((r) => r.body!);
const noThinkLeaks = (messages: Msg[]) => expect(messages.filter((m) => /<\/?think>/.test(String(m.content ?? "")))).toEqual([]);

describe("provider profiles against their servers", () => {
  it("OpenAI: a reasoning model gets reasoning_effort and a developer message; gpt-4o never gets reasoning_effort (it refuses it)", async () => {
    await runTeam("o4-mini", "openai");
    const sent = bodies(fakes.openai);
    expect(sent.every((b) => b.reasoning_effort === "medium" && b.messages![0]!.role === "developer")).toBe(true);
    fakes.openai.reset();
    await runTeam("gpt-4o", "openai");
    expect(bodies(fakes.openai).every((b) => !("reasoning_effort" in b) && b.messages![0]!.role === "system")).toBe(true);
  });

  it("vLLM: the thinking switch goes in chat_template_kwargs, and inline <think> is moved to the thinking", async () => {
    const { all } = await runTeam("vllm", "vllm");
    const sent = bodies(fakes.vllm);
    expect(sent.every((b) => (b.chat_template_kwargs as { enable_thinking?: boolean })?.enable_thinking === true && !("enable_thinking" in b))).toBe(true);
    noThinkLeaks(all);
    const summary = all.find((m) => String(m.content).includes("SUMMARY vllm"))!;
    expect(summary.content).toBe("SUMMARY vllm: both agents reported");
    expect(summary.reasoning_content).toBe("Both reported; summing up.\n");
    // The thinking is not sent back to the model either.
    expect(sent.some((b) => JSON.stringify(b.messages).includes("<think>"))).toBe(false);
  });

  it("vLLM started without auto tool choice: the 400 becomes a notice naming the flags, in English and Chinese", async () => {
    const id = await start("vllm-no-tools");
    const notice = await until("the server-flag notice", async () => ((await snapshotOf(server, id)).notices as Array<Record<string, any>>).find((n) => n.code === "model_server_flag")); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(notice.key).toBe("notice.msg.leaderServerFlag");
    expect(notice.params).toMatchObject({ server: "vLLM", flag: "--enable-auto-tool-choice --tool-call-parser <parser>" });
    expect(notice.message).toContain("restart vLLM with --enable-auto-tool-choice --tool-call-parser <parser>");
    // A refusal of the configuration is not retried.
    expect(fakes.vllmNoTools.calls).toBe(1);
  });

  it("Ollama: reasoning_effort switches thinking, delta.reasoning is the thinking, usage is asked for, and a JSON-text tool call is recovered and recorded", async () => {
    const { id, agents, leader } = await runTeam("ollama", "ollama");
    const sent = bodies(fakes.ollama);
    expect(sent.every((b) => b.reasoning_effort === "medium" && b.stream_options?.include_usage === true)).toBe(true);
    expect(leader.find((m) => String(m.content).includes("SUMMARY ollama"))!.reasoning_content).toBe("Both reported; summing up.");
    for (const messages of agents) {
      const first = messages.find((m) => m.role === "assistant")!;
      expect(first).toMatchObject({ content: null, metadata: { tool_calls_recovered: true } });
      expect(first.tool_calls![0]!.function.name).toBe("list_files");
    }
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string; resource: string }>;
    expect(timeline.filter((r) => r.action === "tool_call_recovered")).toHaveLength(2);
    const { token_statistics } = (await server.api("GET", `/api/conversations/${id}/messages`)).json;
    expect(JSON.stringify(token_statistics)).toMatch(/"prompt_tokens":[1-9]/);
  });

  it("DeepSeek: thinking: {type: enabled}, and every earlier assistant turn carries its reasoning_content back", async () => {
    const { leader } = await runTeam("deepseek", "deepseek");
    const sent = bodies(fakes.deepseek);
    expect(sent.every((b) => (b.thinking as { type?: string })?.type === "enabled")).toBe(true);
    const later = sent.filter((b) => isLeader(b) && b.messages!.some((m) => m.role === "assistant"));
    expect(later.length).toBeGreaterThan(0);
    for (const b of later) {
      for (const m of b.messages!.filter((m) => m.role === "assistant")) expect(typeof m.reasoning_content).toBe("string");
    }
    expect(later.some((b) => b.messages!.some((m) => m.reasoning_content === "Two angles: the files, then a review."))).toBe(true);
    expect(leader.filter((m) => m.role === "assistant").every((m) => m.reasoning_content)).toBe(true);
  });

  it("DashScope: parallel_tool_calls lets the leader create both agents in one turn", async () => {
    const { leader } = await runTeam("dashscope", "dashscope");
    const sent = bodies(fakes.dashscope);
    expect(sent.every((b) => b.parallel_tool_calls === true && b.enable_thinking === true)).toBe(true);
    const creating = leader.filter((m) => m.role === "assistant" && m.tool_calls?.some((c) => c.function.name === "create_sub_agent"));
    expect(creating).toHaveLength(1);
    expect(creating[0]!.tool_calls).toHaveLength(2);
  });

  it("LM Studio: tool calls in one final chunk with empty ids get ids of their own, and inline <think> is thinking", async () => {
    const { all } = await runTeam("lmstudio", "lmstudio");
    const calls = all.flatMap((m) => m.tool_calls ?? []);
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(calls.every((c) => c.id.length > 0)).toBe(true);
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    noThinkLeaks(all);
    expect(all.filter((m) => m.role === "assistant").every((m) => m.reasoning_content)).toBe(true);
  });

  it("llama.cpp: guessed from its /v1/models and shown so; calls without ids work; without --jinja the 500 becomes a notice naming the flag", async () => {
    const listed = (await server.api("GET", "/api/models")).json.models as Array<{ key: string; provider: Record<string, string> }>;
    const byKey = Object.fromEntries(listed.map((m) => [m.key, m.provider]));
    expect(byKey.llamacpp).toEqual({ profile: "llamacpp", source: "server", detail: 'owned_by "llamacpp"' });
    expect(byKey.vllm).toEqual({ profile: "vllm", source: "named", detail: "" });
    expect(byKey.offline).toMatchObject({ profile: "offline" });
    const { all } = await runTeam("llamacpp", "llamacpp");
    noThinkLeaks(all);
    expect(all.flatMap((m) => m.tool_calls ?? []).every((c) => c.id.length > 0)).toBe(true);

    const id = await start("llamacpp-no-jinja");
    const notice = await until("the --jinja notice", async () => ((await snapshotOf(server, id)).notices as Array<Record<string, any>>).find((n) => n.code === "model_server_flag")); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(notice.params).toMatchObject({ server: "llama.cpp server", flag: "--jinja" });
    expect(fakes.llamacppNoJinja.calls).toBe(1);
  });
});

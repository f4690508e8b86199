/**
 * The connection doctor against every provider's fake server (this folder), through the command
 * line (`npm run doctor -- <key> --json`, reading the data folder as the server does) and through
 * the built server's `POST /api/models/{key}/doctor`: each profile's quirks come out as its lines
 * — vLLM without auto tool choice amber with the flag named, inline `<think>` amber, DeepSeek's
 * reasoning_content sent back, DashScope's parallel calls asked for, LM Studio's and llama.cpp's
 * final-chunk calls without ids, llama.cpp without --jinja red, a server that is down, a wrong key
 * against a server that checks it, a model the server does not list. The fakes answer the probes
 * through ./doctor-turns.ts, put in front of ./scenario.ts's team script here.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DoctorReportSchema, type DoctorReport } from "@/lib/contracts/http";
import type { FakeOpenAI } from "../helpers/fake-openai";
import { freePort, startServer, tempDir, type TestServer } from "../helpers/server";
import { startDashScopeFake } from "./dashscope";
import { startDeepSeekFake } from "./deepseek";
import { startLlamaCppFake } from "./llamacpp";
import { startLmStudioFake } from "./lmstudio";
import { startOllamaFake } from "./ollama";
import { startOpenAIFake } from "./openai";
import { startVllmFake } from "./vllm";

const REPO = path.resolve(__dirname, "..", "..");
const RIGHT_KEY = "sk-right-key-123456";
let home: string;
let server: TestServer;
let keyed: http.Server;
const fakes: FakeOpenAI[] = [];

/** OpenAI's answer to a wrong key, in front of a fake: checks the key of every request. */
async function checkingKey(fake: FakeOpenAI): Promise<string> {
  keyed = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${RIGHT_KEY}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "Incorrect API key provided: sk-wron*****. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", param: null, code: "invalid_api_key" } }));
      return;
    }
    const upstream = http.request({ host: "127.0.0.1", port: fake.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => keyed.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(keyed.address() as AddressInfo).port}/v1`;
}

/** The id of the key "typed in Settings" (the right one of the key-checking server). */
const STORED_REF = "key_5t0r3d0000000000";
const ENV = { FAKE_PROVIDER_KEY: "sk-fake-provider-key", RIGHT_OPENAI_KEY: RIGHT_KEY, WRONG_OPENAI_KEY: "sk-wrong-key-654321" };

beforeAll(async () => {
  const start = async (f: Promise<FakeOpenAI>) => {
    const fake = await f;
    fakes.push(fake);
    return fake;
  };
  const openai = await start(startOpenAIFake());
  const vllm = await start(startVllmFake({ autoToolChoice: true, reasoningParser: false }));
  const vllmNoTools = await start(startVllmFake({ autoToolChoice: false, reasoningParser: false }));
  const ollama = await start(startOllamaFake({ inlineThink: true }));
  const deepseek = await start(startDeepSeekFake());
  const dashscope = await start(startDashScopeFake());
  const lmstudio = await start(startLmStudioFake());
  const llamacpp = await start(startLlamaCppFake({ jinja: true }));
  const llamacppNoJinja = await start(startLlamaCppFake({ jinja: false }));
  const keyedUrl = await checkingKey(openai);
  home = tempDir("astrion-doctor-");
  const entry = (url: string, extra: Record<string, unknown>) => ({ base_url: url, api_key_env: "FAKE_PROVIDER_KEY", timeouts: { first_response_ms: 10_000 }, ...extra });
  const models = {
    offline: { provider: "offline", model: "astrion-offline" },
    openai: entry(openai.url, { provider: "openai", model: "fake-model", thinking_style: "reasoning_effort" }),
    "openai-right-key": entry(keyedUrl, { provider: "openai", model: "fake-model", api_key_env: "RIGHT_OPENAI_KEY" }),
    "openai-wrong-key": entry(keyedUrl, { provider: "openai", model: "fake-model", api_key_env: "WRONG_OPENAI_KEY" }),
    "openai-no-key": entry(openai.url, { provider: "openai", model: "fake-model", api_key_env: "UNSET_OPENAI_KEY" }),
    // Keys typed in Settings → Models: kept in the key store, named by api_key_ref.
    "openai-stored-key": { base_url: keyedUrl, api_key_ref: STORED_REF, provider: "openai", model: "fake-model", timeouts: { first_response_ms: 10_000 } },
    "openai-stored-gone": { base_url: keyedUrl, api_key_ref: "key_000000000000gone", provider: "openai", model: "fake-model", timeouts: { first_response_ms: 10_000 } },
    "model-missing": entry(openai.url, { provider: "openai", model: "gpt-missing" }),
    down: entry(`http://127.0.0.1:${await freePort()}/v1`, { model: "anything" }),
    vllm: entry(vllm.url, { provider: "vllm", model: "Qwen/Qwen3-8B", thinking_style: "enable_thinking" }),
    "vllm-no-tools": entry(vllmNoTools.url, { provider: "vllm", model: "Qwen/Qwen3-8B", thinking_style: "enable_thinking" }),
    ollama: entry(ollama.url, { provider: "ollama", model: "qwen3:1.7b", thinking_style: "enable_thinking" }),
    deepseek: entry(deepseek.url, { provider: "deepseek", model: "fake-model", thinking_style: "enable_thinking" }),
    dashscope: entry(dashscope.url, { provider: "dashscope", model: "fake-model", thinking_style: "enable_thinking" }),
    lmstudio: entry(lmstudio.url, { provider: "lmstudio", model: "qwen/qwen3-4b" }),
    // Not named: guessed from the server's /v1/models, as the model client guesses it.
    llamacpp: entry(llamacpp.url, { model: "qwen3-4b-q4_k_m.gguf" }),
    "llamacpp-no-jinja": entry(llamacppNoJinja.url, { model: "qwen3-4b-q4_k_m.gguf" }),
  };
  writeFileSync(path.join(home, "models.json"), JSON.stringify({ default: "offline", models }));
  writeFileSync(path.join(home, "model-keys.json"), JSON.stringify({ version: 1, keys: { [STORED_REF]: RIGHT_KEY } }), { mode: 0o600 });
  server = await startServer({ home, env: ENV });
});

afterAll(async () => {
  await server?.stop();
  await Promise.all(fakes.map((f) => f.close()));
  await new Promise<void>((resolve) => (keyed ? keyed.close(() => resolve()) : resolve()));
});

/** `npm run doctor -- <key> [args]` as a person runs it, on the test's data folder. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO, "scripts", "doctor.mjs"), ...args], { cwd: REPO, env: { ...process.env, ...ENV, ASTRION_HOME: home } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const viaCli = async (key: string): Promise<DoctorReport> => {
  const run = await cli([key, "--json"]);
  const report = DoctorReportSchema.parse(JSON.parse(run.stdout));
  expect(run.code).toBe(report.ok ? 0 : 1);
  return report;
};

const viaRoute = async (key: string): Promise<DoctorReport> => {
  const res = await server.api("POST", `/api/models/${encodeURIComponent(key)}/doctor`, {});
  expect(res.status).toBe(200);
  return DoctorReportSchema.parse(res.json);
};

/** `check → status message` of each line. */
const summary = (report: DoctorReport) => Object.fromEntries(report.lines.map((l) => [l.check, `${l.status} ${l.message}`]));
const lineOf = (report: DoctorReport, check: string) => report.lines.find((l) => l.check === check)!;

const ALL_GREEN_BASE = { server: "green doctor.server.ok", key: "green doctor.key.accepted", model: "green doctor.model.listed", stream: "green doctor.stream.ok" };

/** What each profile's fake must give, line by line. */
const EXPECTED: Record<string, Record<string, string>> = {
  openai: { ...ALL_GREEN_BASE, tool_call: "green doctor.tool.ok", parallel_tool_calls: "green doctor.parallel.ok", thinking: "green doctor.thinking.no_switch", usage: "amber doctor.usage.asked" },
  vllm: { ...ALL_GREEN_BASE, tool_call: "green doctor.tool.ok", parallel_tool_calls: "green doctor.parallel.ok", thinking: "amber doctor.thinking.inline", usage: "amber doctor.usage.asked" },
  "vllm-no-tools": { ...ALL_GREEN_BASE, tool_call: "red doctor.tool.auto_refused", parallel_tool_calls: "green doctor.parallel.ok", thinking: "amber doctor.thinking.inline", usage: "amber doctor.usage.asked" },
  ollama: { ...ALL_GREEN_BASE, tool_call: "amber doctor.tool.recovered", parallel_tool_calls: "green doctor.parallel.ok", thinking: "amber doctor.thinking.inline", usage: "amber doctor.usage.asked" },
  deepseek: { ...ALL_GREEN_BASE, tool_call: "green doctor.tool.ok", parallel_tool_calls: "green doctor.parallel.ok", thinking: "amber doctor.thinking.sent_back", usage: "amber doctor.usage.asked" },
  dashscope: { ...ALL_GREEN_BASE, tool_call: "green doctor.tool.ok", parallel_tool_calls: "amber doctor.parallel.asked", thinking: "green doctor.thinking.switch", usage: "amber doctor.usage.asked" },
  lmstudio: { ...ALL_GREEN_BASE, tool_call: "amber doctor.tool.final_chunk_ids", parallel_tool_calls: "green doctor.parallel.ok", thinking: "amber doctor.thinking.thinks_anyway", usage: "amber doctor.usage.asked" },
  llamacpp: { ...ALL_GREEN_BASE, tool_call: "amber doctor.tool.final_chunk_ids", parallel_tool_calls: "green doctor.parallel.ok", thinking: "amber doctor.thinking.thinks_anyway", usage: "amber doctor.usage.asked" },
  "llamacpp-no-jinja": { ...ALL_GREEN_BASE, tool_call: "red doctor.tool.flag", thinking: "amber doctor.thinking.thinks_anyway", usage: "amber doctor.usage.asked" },
  "openai-right-key": { ...ALL_GREEN_BASE, tool_call: "green doctor.tool.ok", parallel_tool_calls: "green doctor.parallel.ok", thinking: "green doctor.thinking.none_asked", usage: "amber doctor.usage.asked" },
  "openai-wrong-key": { server: "green doctor.server.ok", key: "red doctor.key.refused" },
  "openai-stored-key": { ...ALL_GREEN_BASE, key: "green doctor.key.stored_accepted", tool_call: "green doctor.tool.ok", parallel_tool_calls: "green doctor.parallel.ok", thinking: "green doctor.thinking.none_asked", usage: "amber doctor.usage.asked" },
  "openai-stored-gone": { server: "green doctor.server.ok", key: "red doctor.key.stored_missing" },
  // The fake lists its models without a key, so the list is read; no call is sent without the key.
  "openai-no-key": { server: "green doctor.server.ok", key: "red doctor.key.missing", model: "green doctor.model.listed" },
  "model-missing": { server: "green doctor.server.ok", key: "green doctor.key.accepted", model: "red doctor.model.missing" },
  down: { server: "red doctor.server.down" },
};

/** The particulars of some lines, beyond their verdict. */
function checkDetails(key: string, report: DoctorReport): void {
  if (key === "vllm-no-tools") {
    expect(lineOf(report, "tool_call").params).toMatchObject({ server: "vLLM", flag: "--enable-auto-tool-choice --tool-call-parser <parser>" });
    expect(lineOf(report, "tool_call").text).toContain("Restart vLLM with --enable-auto-tool-choice --tool-call-parser <parser>");
  }
  if (key === "llamacpp-no-jinja") expect(lineOf(report, "tool_call").text).toBe("llama.cpp server refuses tools. Restart llama.cpp server with --jinja.");
  if (key === "llamacpp") expect(report.provider).toEqual({ profile: "llamacpp", source: "server", detail: 'owned_by "llamacpp"' });
  if (key === "deepseek") expect(lineOf(report, "thinking").params.on).toBe('{"thinking":{"type":"enabled"}}');
  if (key === "model-missing") expect(lineOf(report, "model").text).toContain("to one of: fake-model.");
  if (key === "down") {
    expect(lineOf(report, "server").text).toMatch(/^Nothing answers at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED.*\)\. Start the server, or fix "base_url" of "down" in models\.json\.$/);
    expect(report.skipped).toEqual(["key", "model", "stream", "tool_call", "parallel_tool_calls", "thinking", "usage"]);
  }
  if (key === "openai-wrong-key") {
    expect(lineOf(report, "key").text).toContain("The key in WRONG_OPENAI_KEY was refused (HTTP 401)");
    expect(JSON.stringify(report)).not.toContain(ENV.WRONG_OPENAI_KEY);
  }
}

describe("the connection doctor against each provider's fake", () => {
  it("npm run doctor -- <key> --json reports each profile's quirks, exit code 1 exactly when a line is red", { timeout: 240_000 }, async () => {
    const keys = Object.keys(EXPECTED);
    const reports = await Promise.all(keys.map((key) => viaCli(key)));
    for (const [i, key] of keys.entries()) {
      expect({ key, lines: summary(reports[i]!) }).toEqual({ key, lines: EXPECTED[key] });
      expect(reports[i]!.ok).toBe(!Object.values(EXPECTED[key]!).some((v) => v.startsWith("red")));
      checkDetails(key, reports[i]!);
    }
  });

  it("POST /api/models/{key}/doctor on the built server gives the same lines", { timeout: 240_000 }, async () => {
    for (const key of Object.keys(EXPECTED)) {
      const report = await viaRoute(key);
      expect({ key, lines: summary(report) }).toEqual({ key, lines: EXPECTED[key] });
      checkDetails(key, report);
    }
  });

  it("the command line prints marked lines; an unknown key, the offline model and bad arguments exit 2; the route answers 404 and 400", async () => {
    const printed = await cli(["vllm-no-tools"]);
    expect(printed.code).toBe(1);
    expect(printed.stdout).toMatch(/✘ red +tool_call +vLLM refuses tool_choice "auto"/);
    expect(printed.stdout).toMatch(/✔ green server +The server at/);
    const amber = await cli(["dashscope"]);
    expect(amber.code).toBe(0);
    expect(amber.stdout).toMatch(/▲ amber parallel_tool_calls/);
    const red = await cli(["down"]);
    expect(red.code).toBe(1);
    expect(red.stdout).toMatch(/✘ red +server +Nothing answers at/);
    expect(red.stdout).toContain("not checked: key, model, stream");
    const unknown = await cli(["nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown model key "nope"');
    expect((await cli(["offline"])).code).toBe(2);
    expect((await cli(["vllm", "--colour"])).code).toBe(2);
    expect((await server.api("POST", "/api/models/nope/doctor", {})).status).toBe(404);
    const offline = await server.api("POST", "/api/models/offline/doctor", {});
    expect(offline.status).toBe(400);
    expect(offline.json.error.message).toContain("built-in offline model");
  });

  it("the route is a guarded state change: a cross-site POST is refused", async () => {
    const res = await server.api("POST", "/api/models/vllm/doctor", {}, { origin: "http://evil.example" });
    expect(res.status).toBe(403);
  });
});

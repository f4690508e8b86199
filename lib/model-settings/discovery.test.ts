import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { discoveryConfigFromEnv, LocalDiscovery, probePort } from "./discovery";
import { entryForFound, guessProvider, keyForFound } from "./found-servers";
import { ModelEntryFieldsSchema } from "./schema";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** A real HTTP server on a free port of 127.0.0.1 answering `routes` (path → JSON), or never answering when `stall`. */
async function serve(routes: Record<string, unknown>, opts: { stall?: boolean } = {}): Promise<number> {
  const srv = http.createServer((req, res) => {
    if (opts.stall) return; // holds the request open, answering nothing
    const body = routes[(req.url ?? "").split("?")[0] ?? ""];
    if (body === undefined) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  servers.push(srv);
  return (srv.address() as AddressInfo).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const port = await serve({});
  const srv = servers.pop()!;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe("probePort", () => {
  it("finds Ollama by its /api/tags and lists its models", async () => {
    const port = await serve({ "/api/tags": { models: [{ name: "qwen3:8b" }, { name: "llama3.2:3b" }] }, "/v1/models": { object: "list", data: [{ id: "qwen3:8b", owned_by: "library" }] } });
    expect(await probePort(port, 1000)).toEqual({ provider: "ollama", base_url: `http://127.0.0.1:${port}/v1`, port, models: ["qwen3:8b", "llama3.2:3b"] });
  });

  it("finds an OpenAI-compatible server by /v1/models and tells vLLM and llama.cpp apart by owned_by", async () => {
    const vllm = await serve({ "/v1/models": { object: "list", data: [{ id: "Qwen/Qwen3-8B", owned_by: "vllm" }] } });
    expect(await probePort(vllm, 1000)).toEqual({ provider: "vllm", base_url: `http://127.0.0.1:${vllm}/v1`, port: vllm, models: ["Qwen/Qwen3-8B"] });
    const llama = await serve({ "/v1/models": { object: "list", data: [{ id: "model.gguf", owned_by: "llamacpp" }] } });
    expect((await probePort(llama, 1000))?.provider).toBe("llamacpp");
    expect(guessProvider(["organization_owner"], 9)).toBe("lmstudio");
    expect(guessProvider([], 1234)).toBe("lmstudio");
    expect(guessProvider([], 9)).toBe("generic");
  });

  it("answers null for a closed port, a server that is no model server, and a server that never answers — within the deadline", async () => {
    expect(await probePort(await closedPort(), 300)).toBeNull();
    expect(await probePort(await serve({ "/": { hello: "world" } }), 300)).toBeNull();
    const slow = await serve({}, { stall: true });
    const started = Date.now();
    expect(await probePort(slow, 300)).toBeNull();
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe("LocalDiscovery", () => {
  it("looks at every configured port at once, keeps the result, and is bounded by the slowest deadline", async () => {
    const ollama = await serve({ "/api/tags": { models: [{ name: "qwen3:8b" }] } });
    const slow = await serve({}, { stall: true });
    const discovery = new LocalDiscovery({ ports: [ollama, slow, await closedPort()], timeoutMs: 300 });
    const started = Date.now();
    const report = await discovery.report();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(report.servers.map((s) => s.port)).toEqual([ollama]);
    expect(report.scanned_at).not.toBeNull();
    expect(await discovery.report()).toBe(report);
    // A result older than 15 s is not answered again: a server may have started since.
    const later = await discovery.report(Date.parse(report.scanned_at!) + 16_000);
    expect(later).not.toBe(report);
    expect(later.servers.map((s) => s.port)).toEqual([ollama]);
  });

  it("reads its ports from ASTRION_DISCOVERY_PORTS (default Ollama, LM Studio, vLLM, llama.cpp; `off` none)", () => {
    expect(discoveryConfigFromEnv({}).ports).toEqual([11434, 1234, 8000, 8080]);
    expect(discoveryConfigFromEnv({ ASTRION_DISCOVERY_PORTS: "4001, 4002,x,4001" }).ports).toEqual([4001, 4002]);
    expect(discoveryConfigFromEnv({ ASTRION_DISCOVERY_PORTS: "off" }).ports).toEqual([]);
  });
});

describe("an entry for a found model", () => {
  it("is a valid form entry needing no key, under a key no entry has", () => {
    const server = { provider: "ollama" as const, base_url: "http://127.0.0.1:11434/v1", port: 11434 };
    expect(ModelEntryFieldsSchema.parse(entryForFound(server, "qwen3:8b"))).toMatchObject({ provider: "ollama", model: "qwen3:8b", max_concurrency: 1 });
    expect(keyForFound(server, "qwen3:8b", ["offline"])).toBe("ollama-qwen3-8b");
    expect(keyForFound(server, "qwen3:8b", ["ollama-qwen3-8b", "ollama-qwen3-8b-2"])).toBe("ollama-qwen3-8b-3");
  });
});

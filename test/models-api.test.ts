/**
 * Settings → Models through the real built server: an entry added with a typed API key (kept in
 * model-keys.json, mode 0600, never in models.json, never in an answer, a log line or an export)
 * that a conversation then runs on (the fake endpoint sees the key as the bearer token); the etag
 * rule against a hand edit; refusals with their reasons; the model list of a server; local servers
 * found on the ports ASTRION_DISCOVERY_PORTS names; a conversation's model changed; cross-site
 * writes refused.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const SECRET = "sk-typed-in-the-ui-4b8d0c2e";
let fake: FakeOpenAI;
let ollama: http.Server;
let ollamaPort: number;
let server: TestServer;
let project: string;
const modelsFile = () => path.join(server.home, "models.json");
const onDisk = () => readFileSync(modelsFile(), "utf8");
const entry = (url: string) => ({ label: "Typed key", provider: "openai", base_url: url, model: "fake-model", thinking_style: "none", max_concurrency: 2 });

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: fakeText("Done on the typed-key model.") });
  ollama = http.createServer((req, res) => {
    if (req.url === "/api/tags") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ models: [{ name: "qwen3:8b" }] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => ollama.listen(0, "127.0.0.1", resolve));
  ollamaPort = (ollama.address() as AddressInfo).port;
  project = tempDir("astrion-project-");
  server = await startServer({ env: { ASTRION_DISCOVERY_PORTS: String(ollamaPort) } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  ollama?.closeAllConnections();
  await new Promise<void>((resolve) => ollama?.close(() => resolve()));
});

describe("the models API", () => {
  it("adds an entry with a typed key: the key is stored apart (0600) and never answered", async () => {
    const { etag } = (await server.api("GET", "/api/models/entries")).json;
    const added = await server.api("POST", "/api/models/entries", { key: "typed", entry: entry(fake.url), api_key: { mode: "stored", value: SECRET }, etag });
    expect(added.status).toBe(201);
    expect(added.text).not.toContain(SECRET);
    expect(added.json.entries.find((e: { key: string }) => e.key === "typed")).toMatchObject({ api_key: { source: "stored", set: true }, entry: { model: "fake-model" } });
    expect(onDisk()).not.toContain(SECRET);
    const ref = JSON.parse(onDisk()).models.typed.api_key_ref;
    const keyFile = path.join(server.home, "model-keys.json");
    expect(JSON.parse(readFileSync(keyFile, "utf8")).keys[ref]).toBe(SECRET);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    for (const p of ["/api/models", "/api/models/entries", "/api/health"]) expect((await server.api("GET", p)).text).not.toContain(SECRET);
    expect((await server.api("GET", "/api/models")).json.models.find((m: { key: string }) => m.key === "typed")).toMatchObject({ configured: true, api_key: { source: "stored", set: true } });
  });

  it("lists a server's models with the stored key", async () => {
    fake.reset();
    const listed = await server.api("POST", "/api/models/upstream", { base_url: fake.url, key: "typed" });
    expect(listed.json).toEqual({ models: ["fake-model"], error: null });
    expect(fake.requests.find((r) => r.path === "/v1/models")?.authorization).toBe(`Bearer ${SECRET}`);
    expect((await server.api("POST", "/api/models/upstream", { base_url: "http://127.0.0.1:9/v1" })).json).toMatchObject({ models: [], error: { code: "unreachable" } });
  });

  it("makes it the default, and a conversation runs on it without a restart, sending the key", async () => {
    const { etag } = (await server.api("GET", "/api/models/entries")).json;
    const set = await server.api("PUT", "/api/models/default", { key: "typed", etag });
    expect(set.json).toMatchObject({ default: "typed", effective_default: "typed" });
    expect((await server.api("GET", "/api/models")).json.default_key).toBe("typed");
    fake.reset();
    const conv = (await server.api("POST", "/api/conversations", { project_path: project, title: "Typed" })).json.conversation;
    expect(conv.model_key).toBe("typed");
    expect((await server.api("POST", `/api/conversations/${conv.id}/messages`, { content: "Say hello" })).status).toBe(202);
    await fake.waitForCalls(1, 30_000);
    expect(fake.requests.find((r) => r.path === "/v1/chat/completions")?.authorization).toBe(`Bearer ${SECRET}`);
    // Nothing the person can take away carries the key: the zip export, the Markdown report, the log.
    await until("the leader's answer", async () => JSON.stringify((await server.api("GET", `/api/conversations/${conv.id}/messages`)).json ?? "").includes("Done on the typed-key model."));
    const zip = new Uint8Array(await (await fetch(`${server.url}/api/conversations/export`, { method: "POST", headers: { "content-type": "application/json", origin: server.url }, body: JSON.stringify({ ids: [conv.id] }) })).arrayBuffer());
    const files = unzipSync(zip);
    expect(Object.keys(files).length).toBeGreaterThan(1);
    for (const [name, bytes] of Object.entries(files)) {
      expect(name).not.toMatch(/model-keys|models\.json/);
      expect(Buffer.from(bytes).toString("utf8")).not.toContain(SECRET);
    }
    expect((await server.api("GET", `/api/conversations/${conv.id}/export?format=md`)).text).not.toContain(SECRET);
    expect(server.output()).not.toContain(SECRET);
  });

  it("refuses a change made over a hand edit (409) and leaves the file as edited", async () => {
    const { etag } = (await server.api("GET", "/api/models/entries")).json;
    const edited = onDisk().replace('"Typed key"', '"Edited by hand"');
    writeFileSync(modelsFile(), edited);
    const stale = await server.api("PUT", "/api/models/entries/typed", { entry: { ...entry(fake.url), label: "From the form" }, etag });
    expect(stale.status).toBe(409);
    expect(stale.json.error.details).toMatchObject({ reason: "stale" });
    expect(onDisk()).toBe(edited);
    const fresh = (await server.api("GET", "/api/models/entries")).json;
    expect(fresh.entries.find((e: { key: string }) => e.key === "typed").entry.label).toBe("Edited by hand");
  });

  it("refuses a bad URL, an unknown fallback and removing the default, with reasons", async () => {
    const { etag } = (await server.api("GET", "/api/models/entries")).json;
    const badUrl = await server.api("POST", "/api/models/entries", { key: "bad", entry: { ...entry("ftp://x"), base_url: "ftp://x" }, etag });
    expect(badUrl.status).toBe(400);
    expect(badUrl.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "entry.base_url" })]));
    const fallback = await server.api("POST", "/api/models/entries", { key: "bad", entry: { ...entry(fake.url), fallback: "nope" }, etag });
    expect(fallback.status).toBe(400);
    expect(fallback.json.error.details).toEqual([expect.objectContaining({ path: "entry.fallback", reason: "unknown_fallback", name: "nope" })]);
    const removing = await server.api("DELETE", "/api/models/entries/typed", { etag });
    expect(removing.status).toBe(400);
    expect(removing.json.error.details).toEqual([expect.objectContaining({ reason: "referenced", kind: "default" })]);
  });

  it("finds the local server on the configured port and offers its models", async () => {
    const found = (await server.api("POST", "/api/models/discovery")).json;
    expect(found.ports).toEqual([ollamaPort]);
    expect(found.servers).toEqual([{ provider: "ollama", base_url: `http://127.0.0.1:${ollamaPort}/v1`, port: ollamaPort, models: ["qwen3:8b"] }]);
    expect((await server.api("GET", "/api/models/discovery")).json.servers).toHaveLength(1);
  });

  it("changes a conversation's model to a registered key only", async () => {
    const conv = (await server.api("POST", "/api/conversations", { project_path: project, title: "Switch" })).json.conversation;
    const unknown = await server.api("PATCH", `/api/conversations/${conv.id}`, { model_key: "nope" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.details).toEqual([expect.objectContaining({ path: "model_key" })]);
    expect(conv.model_key).not.toBe("offline");
    const changed = await server.api("PATCH", `/api/conversations/${conv.id}`, { model_key: "offline" });
    expect(changed.json.conversation.model_key).toBe("offline");
    expect((await server.api("GET", `/api/conversations/${conv.id}`)).json.conversation.model_key).toBe("offline");
    // The timeline records the change, once (the same key again changes nothing).
    await server.api("PATCH", `/api/conversations/${conv.id}`, { model_key: "offline" });
    const timeline = (await server.api("GET", `/api/conversations/${conv.id}/timeline`)).json as { records: Array<{ action: string; resource: string; envelope: { payload: unknown } }> };
    const changes = timeline.records.filter((r) => r.action === "model_changed");
    expect(changes).toHaveLength(1);
    expect(changes[0]!.resource).toBe("model:offline");
    expect(changes[0]!.envelope.payload).toEqual({ from: conv.model_key, to: "offline" });
  });

  it("refuses cross-site writes", async () => {
    const res = await server.api("PUT", "/api/models/default", { key: "offline" }, { origin: "http://evil.example" });
    expect(res.status).toBe(403);
    expect(JSON.parse(onDisk()).default).toBe("typed");
  });

  it("removes an entry once nothing names it, and forgets its key", async () => {
    let { etag } = (await server.api("GET", "/api/models/entries")).json;
    etag = (await server.api("PUT", "/api/models/default", { key: "offline", etag })).json.etag;
    const removed = await server.api("DELETE", "/api/models/entries/typed", { etag });
    expect(removed.status).toBe(200);
    expect(JSON.parse(onDisk()).models.typed).toBeUndefined();
    expect(readFileSync(path.join(server.home, "model-keys.json"), "utf8")).not.toContain(SECRET);
  });
});

/**
 * The memory API through the real built server: add, list/search, get, edit, re-level and delete
 * entries in memory/entries.json; redaction on create and edit (nothing sensitive reaches the
 * file or the answers); clear 400s and 404s; cross-site writes refused; the account-id patterns
 * of models.json, set from the Settings API; a broken entries.json reported in /api/health and
 * kept aside; vectors from an OpenAI-compatible /v1/embeddings when models.json names an
 * `embedding` model.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";

let server: TestServer;
const entriesFile = () => path.join(server.home, "memory", "entries.json");

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe("the memory API", () => {
  let id = "";

  it("adds an entry by hand, redacted before it is written, and lists and searches it (English and Chinese)", async () => {
    const res = await server.api("POST", "/api/memory/entries", {
      kind: "fact",
      statement: "支付服务的订单接口已废弃，联系 ops@pay.example 或 13812345678",
      subject: "订单接口",
      project_path: "/srv/pay",
      level: "project",
    });
    expect(res.status).toBe(201);
    expect(res.json.action).toBe("added");
    const entry = res.json.entry;
    id = entry.id;
    expect(entry).toMatchObject({ author: "person", source: { conversation_id: null, message_ids: [] }, level: "project", project_path: "/srv/pay" });
    expect(entry.statement).toBe("支付服务的订单接口已废弃，联系 [redacted:email] 或 [redacted:phone]");
    expect(entry.redactions.map((r: { kind: string }) => r.kind)).toEqual(["email", "phone"]);
    const disk = readFileSync(entriesFile(), "utf8");
    expect(disk).not.toContain("ops@pay.example");
    expect(disk).not.toContain("13812345678");
    expect(disk).toContain('    {\n      "id": "mem_'); // the store's seed-style JSON
    await server.api("POST", "/api/memory/entries", { kind: "preference", statement: "Answers should be concise, with code examples", subject: "answer style", level: "public" });
    const zh = await server.api("GET", `/api/memory/entries?q=${encodeURIComponent("订单接口")}`);
    expect(zh.status).toBe(200);
    expect(zh.json.entries.map((e: { id: string }) => e.id)).toEqual([id]);
    const en = await server.api("GET", "/api/memory/entries?q=concise%20answers");
    expect(en.json.entries[0].kind).toBe("preference");
    const filtered = await server.api("GET", "/api/memory/entries?kind=fact&level=project&project=%2Fsrv%2Fpay");
    expect(filtered.json).toMatchObject({ total: 1, projects: ["/srv/pay"] });
    expect((await server.api("GET", "/api/memory/entries?project=none")).json.entries.map((e: { kind: string }) => e.kind)).toEqual(["preference"]);
    expect((await server.api("GET", "/api/memory/entries?limit=1&offset=1")).json).toMatchObject({ total: 2, offset: 1, limit: 1 });
  });

  it("merges a duplicate added by hand into the older entry instead of adding it twice", async () => {
    const again = await server.api("POST", "/api/memory/entries", { kind: "preference", statement: "answers should be concise with code examples.", subject: "Answer style", level: "public" });
    expect(again.status).toBe(200);
    expect(again.json.action).toBe("duplicate");
    expect(again.json.entry.history.map((h: { reason: string }) => h.reason)).toEqual(["duplicate"]);
    expect((await server.api("GET", "/api/memory/entries")).json.total).toBe(2);
  });

  it("gets, edits (redacted again, history kept), re-levels with a grant, and deletes", async () => {
    expect((await server.api("GET", `/api/memory/entries/${id}`)).json.entry.id).toBe(id);
    const edited = await server.api("PATCH", `/api/memory/entries/${id}`, { statement: "Order API key is sk-proj-abcdefghijklmnopqrstuvwxyz012345" });
    expect(edited.status).toBe(200);
    expect(edited.json.entry.statement).toBe("Order API key is [redacted:api_key]");
    expect(edited.json.entry.history.at(-1)).toMatchObject({ reason: "edit" });
    expect(readFileSync(entriesFile(), "utf8")).not.toContain("sk-proj-abcdefghijklmnopqrstuvwxyz012345");
    const relevel = await server.api("PATCH", `/api/memory/entries/${id}`, { level: "restricted", grant: ["code-reviewer"] });
    expect(relevel.json.entry).toMatchObject({ level: "restricted", grant: ["code-reviewer"] });
    expect(relevel.json.entry.history.at(-1).reason).toBe("relevel");
    const del = await server.api("DELETE", `/api/memory/entries/${id}`);
    expect(del.json).toEqual({ deleted: id });
    expect((await server.api("GET", `/api/memory/entries/${id}`)).status).toBe(404);
    expect(readFileSync(entriesFile(), "utf8")).not.toContain(id);
  });

  it("answers bad bodies, ids and queries with clear 400s and unknown ids with 404s", async () => {
    const cases: Array<[string, string, unknown]> = [
      ["POST", "/api/memory/entries", { kind: "rumour", statement: "x" }],
      ["POST", "/api/memory/entries", { kind: "fact", statement: "   " }],
      ["POST", "/api/memory/entries", { kind: "fact", statement: "x", project_path: "relative/path" }],
      ["POST", "/api/memory/entries", { kind: "fact", statement: "x", level: "project" }],
      ["POST", "/api/memory/entries", { kind: "fact", statement: "x", level: "restricted", grant: [] }],
      ["POST", "/api/memory/entries", { kind: "fact", statement: "x", author: "distiller" }],
      ["POST", "/api/memory/entries", { kind: "fact", statement: "x".repeat(2001) }],
      ["PATCH", "/api/memory/entries/mem_nosuchentry", {}],
      ["PATCH", "/api/memory/entries/not-an-id", { statement: "x" }],
      ["GET", "/api/memory/entries?kind=rumour", undefined],
      ["GET", "/api/memory/entries?limit=0", undefined],
    ];
    for (const [method, url, body] of cases) {
      const res = await server.api(method, url, body);
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json.error.code).toMatch(/validation_failed|bad_request/);
    }
    const notJson = await server.request({ method: "POST", path: "/api/memory/entries", headers: { "content-type": "application/json", origin: server.url }, body: "{" });
    expect(notJson.status).toBe(400);
    expect((await server.api("PATCH", "/api/memory/entries/mem_nosuchentry", { statement: "x" })).status).toBe(404);
    expect((await server.api("DELETE", "/api/memory/entries/mem_nosuchentry")).status).toBe(404);
  });

  it("refuses cross-site writes", async () => {
    const res = await server.api("POST", "/api/memory/entries", { kind: "fact", statement: "planted" }, { origin: "http://evil.example" });
    expect(res.status).toBe(403);
    expect(readFileSync(entriesFile(), "utf8")).not.toContain("planted");
  });

  it("masks configured account ids: patterns set from Settings land in models.json and apply to the next write", async () => {
    const bad = await server.api("PUT", "/api/memory/redaction", { account_patterns: ["{digit:8}"] });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/refused/);
    const saved = await server.api("PUT", "/api/memory/redaction", { account_patterns: ["acct_{digit:8}"] });
    expect(saved.json).toEqual({ account_patterns: ["acct_{digit:8}"] });
    const models = JSON.parse(readFileSync(path.join(server.home, "models.json"), "utf8"));
    expect(models.redaction).toEqual({ account_patterns: ["acct_{digit:8}"] });
    expect(models.models.offline).toBeTruthy(); // the rest of the file kept
    expect((await server.api("GET", "/api/memory/redaction")).json).toEqual({ account_patterns: ["acct_{digit:8}"] });
    const res = await server.api("POST", "/api/memory/entries", { kind: "fact", statement: "Refunds for acct_12345678 go through finance", level: "public" });
    expect(res.json.entry.statement).toBe("Refunds for [redacted:account_id] go through finance");
    expect(res.json.entry.redactions).toEqual([{ field: "statement", kind: "account_id", start: 12, end: 33 }]);
  });
});

describe("a broken entries.json", () => {
  it("is reported in /api/health, kept aside unchanged, and memory goes on empty", async () => {
    const home = tempDir("astrion-home-");
    mkdirSync(path.join(home, "memory"));
    const broken = '{"version": 1, "entries": [{"id": "mem_x"';
    writeFileSync(path.join(home, "memory", "entries.json"), broken);
    const s = await startServer({ home });
    try {
      const health = await s.api("GET", "/api/health");
      expect(health.status).toBe(200);
      const problem = health.json.problems.find((p: { file: string }) => p.file === "memory/entries.json");
      expect(problem.message).toMatch(/not valid JSON.*kept as memory\/entries\.json\.broken-/);
      const kept = readdirSync(path.join(home, "memory")).find((n) => n.startsWith("entries.json.broken-"))!;
      expect(readFileSync(path.join(home, "memory", kept), "utf8")).toBe(broken);
      expect((await s.api("GET", "/api/memory/entries")).json.total).toBe(0);
      expect((await s.api("POST", "/api/memory/entries", { kind: "fact", statement: "after the break", level: "public" })).status).toBe(201);
      expect(readFileSync(path.join(home, "memory", kept), "utf8")).toBe(broken);
    } finally {
      await s.stop();
    }
  });
});

describe("with an embedding model", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("embeds entries at write time through /v1/embeddings, keeps the vectors in the index, and embeds the query", async () => {
    const home = tempDir("astrion-home-");
    writeFileSync(
      path.join(home, "models.json"),
      JSON.stringify({ default: "offline", embedding: "emb", models: { offline: { provider: "offline", model: "astrion-offline" }, emb: { base_url: fake.url, model: "fake-embedding" } } }),
    );
    const s = await startServer({ home });
    try {
      fake.reset();
      const res = await s.api("POST", "/api/memory/entries", { kind: "fact", statement: "Redis holds the session cache", subject: "sessions", level: "public" });
      expect(res.status).toBe(201);
      const embedCalls = () => fake.requests.filter((r) => /\/embeddings$/.test(r.path));
      expect(embedCalls().length).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(embedCalls()[0]!.body)).toContain("Redis holds the session cache");
      const found = await s.api("GET", "/api/memory/entries?q=session%20cache");
      expect(found.json.entries[0].statement).toBe("Redis holds the session cache");
      expect(JSON.stringify(embedCalls().at(-1)!.body)).toContain("session cache");
      await expect.poll(() => existsSync(path.join(home, "memory", "index.json")), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => JSON.parse(readFileSync(path.join(home, "memory", "index.json"), "utf8")).embedding, { timeout: 10_000 }).toEqual({ key: "emb", dims: 64 });
      expect((await s.api("GET", "/api/health")).json.problems).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

/**
 * `GET /api/openapi.json` against the built server: it serves the document docs/openapi.json
 * holds, and real exchanges fit it — each request body its operation's request schema, each
 * answer (errors included) the schema of its status, each server-sent event the stream's event
 * schema — checked with zod itself (test/helpers/openapi.ts), not with a second validator.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerSchema, issuesOf, operationOf, requestSchema } from "./helpers/openapi";
import { firstEvents, REPO_ROOT, startServer, tempDir, type RawResponse, type TestServer } from "./helpers/server";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: TestServer;
let project: string;
let doc: Json;

beforeAll(async () => {
  server = await startServer();
  project = tempDir("astrion-project-");
  doc = JSON.parse(readFileSync(path.join(REPO_ROOT, "docs/openapi.json"), "utf8"));
});

afterAll(async () => {
  await server?.stop();
});

/** Expects an answer to fit the document's schema of its status. */
function expectFits(method: string, p: string, res: RawResponse): void {
  expect(issuesOf(doc, answerSchema(doc, method, p, res.status), res.json), `${method} ${p} → ${res.status}: ${res.text.slice(0, 300)}`).toEqual([]);
}

/** Sends a JSON request and expects its body and the answer to fit the document. */
async function exchange(method: string, p: string, body?: unknown): Promise<RawResponse> {
  if (body !== undefined) expect(issuesOf(doc, requestSchema(doc, method, p), body), `${method} ${p} request`).toEqual([]);
  const res = await server.api(method, p, body);
  expectFits(method, p, res);
  return res;
}

describe("GET /api/openapi.json", () => {
  it("serves the document docs/openapi.json holds", async () => {
    const res = await server.api("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json).toEqual(doc);
  });
});

describe("real exchanges fit the document", () => {
  it("a conversation created, read, listed, renamed, written to, followed and deleted", async () => {
    const created = await exchange("POST", "/api/conversations", { project_path: project, title: "OpenAPI" });
    expect(created.status).toBe(201);
    const id: string = created.json.conversation.id;
    const base = `/api/conversations/${id}`;

    expect((await exchange("GET", base)).json).toEqual(created.json);
    expect((await exchange("GET", "/api/conversations?limit=5")).json.items.map((i: Json) => i.id)).toContain(id);
    expect((await exchange("PATCH", base, { title: "OpenAPI, renamed" })).json.conversation.title).toBe("OpenAPI, renamed");
    for (const part of ["messages", "agents", "timeline", "shared-context"]) expect((await exchange("GET", `${base}/${part}`)).status, part).toBe(200);
    expect((await exchange("PUT", `${base}/shared-context`, { key: "goal", value: "document the API", mode: "append" })).json.decision.outcome).toBe("applied");

    const eventSchema = operationOf(doc, "GET", `${base}/events`).responses["200"].content["text/event-stream"]["x-event-data"];
    const events = await firstEvents(server, id);
    expect(events.map((e) => e.type)).toContain("snapshot");
    for (const event of events) expect(issuesOf(doc, eventSchema, event), event.type).toEqual([]);

    expect((await exchange("DELETE", base)).json).toEqual({ deleted: id });
    expect((await exchange("GET", base)).status).toBe(404);
  });

  it("the reports and settings a person reads", async () => {
    for (const p of ["/api/health", "/api/models", "/api/roles", "/api/roles/researcher", "/api/mcp/servers", "/api/memory/entries", "/api/memory/redaction", "/api/knowledge", "/api/gateway", "/api/search?q=hello"]) {
      expect((await exchange("GET", p)).status, p).toBe(200);
    }
    const added = await exchange("POST", "/api/memory/entries", { kind: "fact", statement: "The API is described by docs/openapi.json.", project_path: project });
    expect(added.status).toBe(201);
    expect((await exchange("GET", `/api/memory/entries/${added.json.entry.id}`)).json.entry.id).toBe(added.json.entry.id);
  });

  it("errors, each in the schema of its status; a body the server refuses, the document refuses too", async () => {
    expect(issuesOf(doc, requestSchema(doc, "POST", "/api/conversations"), {})).not.toEqual([]);
    const refused = await server.api("POST", "/api/conversations", {});
    expect(refused.status).toBe(400);
    expectFits("POST", "/api/conversations", refused);
    expect((await exchange("GET", "/api/conversations/not-an-id")).status).toBe(400);
    const wrongType = await server.request({ method: "POST", path: "/api/conversations", headers: { "content-type": "text/plain", origin: server.url }, body: "{}" });
    expect(wrongType.status).toBe(415);
    expectFits("POST", "/api/conversations", wrongType);
  });
});

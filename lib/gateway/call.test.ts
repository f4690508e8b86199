import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callGatewayOperation } from "./call";
import type { LoadedSource } from "./config";
import { compileMappings } from "./mapping";
import { operationsFromSpec } from "./openapi";
import { GatewayMappingsSchema, OpenApiSourceSchema } from "./schema";
import { z } from "zod";

const SECRET = "tok-0123456789abcdef";
let server: http.Server;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("x".repeat(3 * 1024 * 1024));
    }
    if (req.url === "/leak") {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end(JSON.stringify({ message: `bad token ${req.headers["x-key"]}` }));
    }
    if (req.url === "/hang") return; // never answers
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function source(headers: Record<string, string>, baseUrl = `http://127.0.0.1:${port}`): LoadedSource {
  const spec = { openapi: "3.1.0", paths: { "/big": { get: { operationId: "big" } }, "/leak": { get: { operationId: "leak" } }, "/hang": { get: { operationId: "hang" } } } };
  const mappings = compileMappings(GatewayMappingsSchema.parse({}));
  const operations = operationsFromSpec("t", spec, mappings).operations;
  return {
    name: "t",
    config: OpenApiSourceSchema.parse({ type: "openapi", spec, headers }),
    baseUrl,
    mappings,
    operations,
    tools: new Map(operations.map((op) => [op.toolName, { op, args: z.record(z.string(), z.unknown()) }])),
    warnings: [],
    error: null,
  };
}

const env = { KEY: SECRET };

describe("callGatewayOperation", () => {
  it("reads at most 1 MiB of an answer and keeps the result within the cap", async () => {
    const r = await callGatewayOperation(source({}), "gw__t__big", "{}", { timeoutMs: 10_000, maxChars: 2000, env });
    expect(r.ok).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(2000);
    expect(r.text).toMatch(/response cut at the gateway's size limit/);
  });

  it("redacts the source's header values from an error body that echoes them", async () => {
    const r = await callGatewayOperation(source({ "X-Key": "${KEY}" }), "gw__t__leak", "{}", { timeoutMs: 10_000, maxChars: 2000, env });
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(r.text).toContain("bad token [redacted]");
    expect(r.text).not.toContain(SECRET);
  });

  it("refuses to call when a header's variable is not set, naming the variable and sending nothing", async () => {
    const before = hits.length;
    const r = await callGatewayOperation(source({ "X-Key": "${MISSING_VAR}" }), "gw__t__big", "{}", { timeoutMs: 10_000, maxChars: 2000, env: {} });
    expect(r).toEqual({ ok: false, text: "header X-Key needs the environment variable MISSING_VAR, which is not set on the server", status: null });
    expect(hits.length).toBe(before);
  });

  it("ends a call at its deadline, and at Stop", async () => {
    const late = await callGatewayOperation(source({}), "gw__t__hang", "{}", { timeoutMs: 150, maxChars: 2000, env });
    expect(late).toEqual({ ok: false, text: "the API did not answer within 150 ms (deadline)", status: null });
    const stop = new AbortController();
    const pending = callGatewayOperation(source({}), "gw__t__hang", "{}", { timeoutMs: 60_000, maxChars: 2000, env, signal: stop.signal });
    stop.abort();
    expect(await pending).toEqual({ ok: false, text: "the call was stopped", status: null });
  });

  it("says so when the API cannot be reached, and refuses arguments that are not JSON", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await callGatewayOperation(source({}, `http://127.0.0.1:${closedPort}`), "gw__t__big", "{}", { timeoutMs: 5000, maxChars: 2000, env });
    expect(r.ok).toBe(false);
    expect(r.text).toBe(`cannot reach http://127.0.0.1:${closedPort}: ECONNREFUSED`);
    const bad = await callGatewayOperation(source({}), "gw__t__big", "{oops", { timeoutMs: 5000, maxChars: 2000, env });
    expect(bad.text).toMatch(/^arguments refused/);
  });
});

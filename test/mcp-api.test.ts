/**
 * The MCP servers API through the real built server: add, replace, remove and test servers,
 * written to mcp.json; env and header values masked in every answer, a masked value saved back
 * keeps the stored one; bad bodies and names are clear 400s; cross-site writes are refused; a
 * broken mcp.json is reported (list and /api/health) and never overwritten.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, startServer, type TestServer } from "./helpers/server";

const SECRET = "sk-api-literal-secret-55aa";
const MASK = "••••••••";
const EVERYTHING = path.join(REPO_ROOT, "node_modules", ".bin", "mcp-server-everything");
const FLOOD = path.join(REPO_ROOT, "test", "helpers", "mcp-flood-server.mjs");

let server: TestServer;
const file = () => path.join(server.home, "mcp.json");
const onDisk = () => JSON.parse(readFileSync(file(), "utf8")) as { mcpServers: Record<string, { env?: Record<string, string>; headers?: Record<string, string> }> };

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

describe("the MCP servers API", () => {
  it("starts empty, adds a server (masked in the answer, literal on disk), refuses a second one of that name", async () => {
    expect((await server.api("GET", "/api/mcp/servers")).json).toMatchObject({ servers: [], error: null, file: "mcp.json" });
    const added = await server.api("POST", "/api/mcp/servers", { name: "everything", config: { command: EVERYTHING, env: { TOKEN: SECRET, REF: "${HOME}" } } });
    expect(added.status).toBe(201);
    expect(added.text).not.toContain(SECRET);
    expect(added.json.server).toMatchObject({ name: "everything", type: "stdio", env: { TOKEN: MASK, REF: "${HOME}" }, status: { running_in: 0, tools: null } });
    expect(onDisk().mcpServers.everything!.env!.TOKEN).toBe(SECRET);
    expect((await server.api("POST", "/api/mcp/servers", { name: "everything", config: { command: "x" } })).status).toBe(409);
    expect((await server.api("GET", "/api/mcp/servers")).text).not.toContain(SECRET);
  });

  it("keeps a stored secret when its masked value is saved back, and refuses a masked value with nothing stored", async () => {
    const saved = await server.api("PUT", "/api/mcp/servers/everything", { config: { command: EVERYTHING, env: { TOKEN: MASK, EXTRA: "sk-second-secret-1234" } } });
    expect(saved.status).toBe(200);
    expect(saved.text).not.toContain("sk-second-secret-1234");
    expect(onDisk().mcpServers.everything!.env).toEqual({ TOKEN: SECRET, EXTRA: "sk-second-secret-1234" });
    const refused = await server.api("PUT", "/api/mcp/servers/everything", { config: { command: EVERYTHING, env: { NEW: MASK } } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/NEW is sent masked but no value is stored/);
    expect(onDisk().mcpServers.everything!.env!.TOKEN).toBe(SECRET);
  });

  it("answers bad names and bodies with clear 400s", async () => {
    const sse = await server.api("POST", "/api/mcp/servers", { name: "old", config: { type: "sse", url: "http://x" } });
    expect(sse.status).toBe(400);
    expect(sse.json.error.message).toMatch(/type "sse" is not supported/);
    expect((await server.api("POST", "/api/mcp/servers", { name: "a__b", config: { command: "x" } })).status).toBe(400);
    expect((await server.api("PUT", "/api/mcp/servers/bad..name", { config: { command: "x" } })).status).toBe(400);
    const noCommand = await server.api("PUT", "/api/mcp/servers/x", { config: { args: [] } });
    expect(noCommand.status).toBe(400);
    expect(noCommand.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "config.command" })]));
    expect((await server.api("PUT", "/api/mcp/servers/x", { config: { type: "http", url: "file:///etc/passwd" } })).status).toBe(400);
  });

  it("refuses cross-site writes like every mutating route", async () => {
    const r = await server.request({ method: "POST", path: "/api/mcp/servers", headers: { "content-type": "application/json", origin: "http://evil.example" }, body: JSON.stringify({ name: "evil", config: { command: "sh" } }) });
    expect(r.status).toBe(403);
    const form = await server.request({ method: "DELETE", path: "/api/mcp/servers/everything", headers: { "content-type": "text/plain", origin: `http://127.0.0.1:${server.port}` }, body: "{}" });
    expect(form.status).toBe(415);
    expect(Object.keys(onDisk().mcpServers)).toEqual(["everything"]);
  });

  it("tests a server: starts it, lists its tools with descriptions and effects, stops it", async () => {
    const r = await server.api("POST", "/api/mcp/servers/everything/test");
    expect(r.status).toBe(200);
    expect(r.json.ok).toBe(true);
    const echo = (r.json.tools as Array<{ name: string; model_name: string; description: string; effect: string }>).find((t) => t.name === "echo")!;
    expect(echo).toMatchObject({ model_name: "mcp__everything__echo", effect: "read" });
    expect(echo.description.length).toBeGreaterThan(0);
    const listed = (await server.api("GET", "/api/mcp/servers")).json.servers[0];
    expect(listed.status.running_in).toBe(0);
    expect(listed.status.tools.map((t: { name: string }) => t.name)).toContain("echo");
    expect((await server.api("POST", "/api/mcp/servers/nope/test")).status).toBe(404);
    // A server that cannot start: 200 with its error, kept as the last error.
    await server.api("PUT", "/api/mcp/servers/dead", { config: { command: "/nonexistent/mcp-binary" } });
    const dead = await server.api("POST", "/api/mcp/servers/dead/test");
    expect(dead.json).toMatchObject({ ok: false, tools: [] });
    expect(dead.json.error).toMatch(/could not start/);
    expect((await server.api("GET", "/api/mcp/servers")).json.servers.find((s: { name: string }) => s.name === "dead").status.last_error).toMatch(/could not start/);
  });

  it("ends a stdio server's connection at a message over 10 MiB with an error saying so, answering meanwhile", async () => {
    // The server sends one line of 12 MB right after initialize; one of 10 MB (under the SDK's own limit) still works.
    await server.api("PUT", "/api/mcp/servers/flood", { config: { command: process.execPath, args: [FLOOD], env: { FLOOD_AT_START: "1", FLOOD_BYTES: "12000000" } } });
    await server.api("PUT", "/api/mcp/servers/big", { config: { command: process.execPath, args: [FLOOD], env: { FLOOD_AT_START: "1", FLOOD_BYTES: "10000000" } } });
    let done = false;
    const tested = server.api("POST", "/api/mcp/servers/flood/test").finally(() => (done = true));
    const health: number[] = [];
    while (!done) health.push((await server.request({ path: "/api/health" })).status);
    const flood = await tested;
    expect(health.every((s) => s === 200)).toBe(true);
    expect(flood.json).toMatchObject({ ok: false, tools: [] });
    expect(flood.json.error).toMatch(/sent a message longer than 10485760 bytes \(the most one MCP message may have\); its connection was ended/);
    const status = (await server.api("GET", "/api/mcp/servers")).json.servers.find((s: { name: string }) => s.name === "flood").status;
    expect(status.last_error).toMatch(/longer than 10485760 bytes/);
    const big = await server.api("POST", "/api/mcp/servers/big/test");
    expect(big.json).toMatchObject({ ok: true, error: null });
    expect(big.json.tools.map((t: { name: string }) => t.name)).toEqual(["flood", "ping"]);
    for (const name of ["flood", "big"]) expect((await server.api("DELETE", `/api/mcp/servers/${name}`)).status).toBe(200);
  });

  it("replaces the whole map, removes a server (404 the second time)", async () => {
    const all = await server.api("PUT", "/api/mcp/servers", { mcpServers: { everything: { command: EVERYTHING, env: { TOKEN: MASK } }, remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: `Bearer ${SECRET}` } } } });
    expect(all.status).toBe(200);
    expect(all.text).not.toContain(SECRET);
    expect(all.json.servers.map((s: { name: string }) => s.name)).toEqual(["everything", "remote"]);
    expect(onDisk().mcpServers.everything!.env).toEqual({ TOKEN: SECRET });
    expect(onDisk().mcpServers.remote!.headers!.Authorization).toBe(`Bearer ${SECRET}`);
    expect((await server.api("DELETE", "/api/mcp/servers/remote")).status).toBe(200);
    expect((await server.api("DELETE", "/api/mcp/servers/remote")).status).toBe(404);
    expect(Object.keys(onDisk().mcpServers)).toEqual(["everything"]);
  });

  it("reports a broken mcp.json in the list and /api/health, and never overwrites it", async () => {
    writeFileSync(file(), '{ "mcpServers": { "x": { "type": "sse" } ');
    const list = await server.api("GET", "/api/mcp/servers");
    expect(list.status).toBe(200);
    expect(list.json.servers).toEqual([]);
    expect(list.json.error).toMatch(/^mcp\.json: /);
    const health = await server.api("GET", "/api/health");
    expect(health.json.problems).toEqual(expect.arrayContaining([expect.objectContaining({ file: "mcp.json" })]));
    const put = await server.api("PUT", "/api/mcp/servers/y", { config: { command: "x" } });
    expect(put.status).toBe(409);
    expect(put.json.error.message).toMatch(/does not load, so it is not overwritten/);
    expect(readFileSync(file(), "utf8")).toBe('{ "mcpServers": { "x": { "type": "sse" } ');
    writeFileSync(file(), JSON.stringify({ mcpServers: { x: { type: "sse", url: "http://x" } } }));
    expect((await server.api("GET", "/api/mcp/servers")).json.error).toMatch(/type "sse" is not supported/);
  });
});

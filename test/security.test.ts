/**
 * Localhost safety against the real running server: Host allowlist on every route, Origin and
 * content-type checks on every state change (and nothing changes when refused), no CORS
 * headers, the optional access token, and the start script's refusal to bind beyond loopback.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToExit, socketExchange, startServer, tempDir, type TestServer } from "./helpers/server";

let server: TestServer;
let project: string;
let convId: string;

beforeAll(async () => {
  server = await startServer();
  project = tempDir("astrion-project-");
  const created = await server.api("POST", "/api/conversations", { title: "Security", project_path: project });
  expect(created.status).toBe(201);
  convId = created.json.conversation.id;
});

afterAll(async () => {
  await server?.stop();
});

/** Every route with a method, as a person or a page would call it. */
function routes(): Array<{ method: string; path: string; body?: unknown }> {
  return [
    { method: "GET", path: "/" },
    { method: "GET", path: "/roles" },
    { method: "GET", path: "/settings" },
    { method: "GET", path: `/conversations/${convId}` },
    { method: "GET", path: "/api/health" },
    { method: "GET", path: "/api/models" },
    { method: "GET", path: "/api/conversations" },
    { method: "POST", path: "/api/conversations", body: { title: "x", project_path: project } },
    { method: "GET", path: `/api/conversations/${convId}` },
    { method: "PATCH", path: `/api/conversations/${convId}`, body: { title: "renamed" } },
    { method: "DELETE", path: `/api/conversations/${convId}` },
    { method: "GET", path: `/api/conversations/${convId}/messages` },
    { method: "GET", path: "/api/roles" },
    { method: "POST", path: "/api/roles", body: { fields: { id: "x1", name: "X", description: "d" }, body: "b" } },
    { method: "GET", path: "/api/roles/researcher" },
    { method: "PUT", path: "/api/roles/researcher", body: { raw: "---\nname: x\ndescription: y\n---\n" } },
    { method: "DELETE", path: "/api/roles/researcher" },
    { method: "POST", path: "/api/roles/import", body: { content: "---\nname: imp\ndescription: d\n---\nbody\n" } },
    { method: "POST", path: "/api/auth/signin", body: { token: "x" } },
  ];
}

/** What a refused request must not have changed. */
async function snapshot() {
  const convs = await server.api("GET", "/api/conversations?status=all&limit=100");
  const roles = await server.api("GET", "/api/roles");
  const conv = await server.api("GET", `/api/conversations/${convId}`);
  return JSON.stringify([convs.json, roles.json, conv.json]);
}

describe("Host allowlist (DNS rebinding)", () => {
  it("answers 403 on every route for a foreign Host", async () => {
    for (const r of routes()) {
      for (const host of ["evil.example", `evil.example:${server.port}`, `127.0.0.1.nip.io:${server.port}`]) {
        const res = await server.request({
          method: r.method,
          path: r.path,
          headers: { host, "content-type": "application/json" },
          body: r.body === undefined ? undefined : JSON.stringify(r.body),
        });
        expect(res.status, `${r.method} ${r.path} with Host ${host}`).toBe(403);
      }
    }
  });

  it("serves localhost, 127.0.0.1 and [::1] with any port", async () => {
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`, "localhost"]) {
      const res = await server.request({ path: "/api/health", headers: { host } });
      expect(res.status, host).toBe(200);
    }
  });
});

describe("state-changing requests", () => {
  it("refuses a foreign Origin with 403 and changes nothing", async () => {
    const before = await snapshot();
    for (const r of routes().filter((x) => x.method !== "GET")) {
      const res = await server.api(r.method, r.path, r.body ?? {}, { origin: "https://evil.example" });
      expect(res.status, `${r.method} ${r.path}`).toBe(403);
      expect(res.json.error.code).toBe("forbidden");
    }
    expect(await snapshot()).toBe(before);
  });

  it("refuses text/plain (a cross-site form post) with 415 and changes nothing", async () => {
    const before = await snapshot();
    for (const r of routes().filter((x) => x.method !== "GET")) {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=z"]) {
        const res = await server.request({
          method: r.method,
          path: r.path,
          headers: { "content-type": type },
          body: JSON.stringify(r.body ?? {}),
        });
        expect(res.status, `${r.method} ${r.path} as ${type}`).toBe(415);
        expect(res.json.error.code).toBe("unsupported_media_type");
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it("never sends CORS headers", async () => {
    for (const r of routes()) {
      const res = await server.request({ method: "GET", path: r.path, headers: { origin: "https://evil.example" } });
      expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-")), r.path).toEqual([]);
    }
    const preflight = await server.request({
      method: "OPTIONS",
      path: "/api/conversations",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("access token", () => {
  let guarded: TestServer;
  const token = "correct-horse-battery-staple-0123456789";

  beforeAll(async () => {
    guarded = await startServer({ env: { ASTRION_TOKEN: token } });
  });
  afterAll(async () => {
    await guarded?.stop();
  });

  it("is required on every API request", async () => {
    expect((await guarded.api("GET", "/api/roles")).status).toBe(401);
    expect((await guarded.api("GET", "/api/conversations", undefined, { authorization: "Bearer nope" })).status).toBe(401);
    expect((await guarded.api("GET", "/api/roles", undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("redirects pages to the sign-in page, which sets an HttpOnly cookie that then works", async () => {
    const page = await guarded.request({ path: "/roles" });
    expect(page.status).toBe(307);
    expect(page.headers.location).toContain("/signin");
    const signin = await guarded.request({ path: "/signin" });
    expect(signin.status).toBe(200);
    expect(signin.text).toContain("protected by an access token");
    expect(signin.text).toContain('data-testid="signin-token"');

    expect((await guarded.api("POST", "/api/auth/signin", { token: "wrong" })).status).toBe(401);
    const ok = await guarded.api("POST", "/api/auth/signin", { token });
    expect(ok.status).toBe(200);
    const cookie = String(ok.headers["set-cookie"]);
    expect(cookie).toMatch(/astrion_token=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const withCookie = await guarded.api("GET", "/api/roles", undefined, { cookie: cookie.split(";")[0]! });
    expect(withCookie.status).toBe(200);
  });
});

describe("the sign-in page without a token", () => {
  it("says no sign-in is needed and links on, with no token form", async () => {
    const page = await server.request({ path: `/signin?next=${encodeURIComponent("/roles")}` });
    expect(page.status).toBe(200);
    expect(page.text).toContain("No sign-in is needed");
    expect(page.text).not.toContain("protected by an access token");
    expect(page.text).not.toContain('data-testid="signin-token"');
    const link = /<a [^>]*data-testid="signin-continue"[^>]*>/.exec(page.text)?.[0];
    expect(link).toContain('href="/roles"');
  });
});

describe("the browser's icon", () => {
  it("serves /favicon.ico as an image", async () => {
    const icon = await server.request({ path: "/favicon.ico" });
    expect(icon.status).toBe(200);
    expect(String(icon.headers["content-type"])).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    // an ICO file: reserved 0, type 1 (icon), at least one image
    const bytes = Buffer.from(icon.text, "latin1");
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2)]).toEqual([0, 1]);
    expect(bytes.readUInt16LE(4)).toBeGreaterThan(0);
  });
});

describe("malformed percent-encoding", () => {
  /** Undecodable segments: overlong, truncated, lone continuation and surrogate encodings. */
  const BAD = ["%C0%AE", "%FF", "%E0%A4%A", "%ED%A0%80", "%C3", "%", "%zz"];

  /** Every dynamic route (find app -name '[*'), with a bad value in each dynamic segment. */
  function apiPaths(bad: string): Array<{ method: string; path: string }> {
    const c = convId;
    return [
      { method: "GET", path: `/api/${bad}` },
      { method: "GET", path: `/api/nothing/${bad}/here` },
      { method: "GET", path: `/api/conversations/${bad}` },
      { method: "PATCH", path: `/api/conversations/${bad}` },
      { method: "DELETE", path: `/api/conversations/${bad}` },
      { method: "GET", path: `/api/conversations/${bad}/agents` },
      { method: "GET", path: `/api/conversations/${bad}/agents/1` },
      { method: "GET", path: `/api/conversations/${c}/agents/${bad}` },
      { method: "POST", path: `/api/conversations/${c}/agents/${bad}/answers` },
      { method: "POST", path: `/api/conversations/${c}/agents/${bad}/messages` },
      { method: "POST", path: `/api/conversations/${bad}/agents/1/messages` },
      { method: "GET", path: `/api/conversations/${c}/context/${bad}` },
      { method: "GET", path: `/api/conversations/${bad}/context/m1` },
      { method: "GET", path: `/api/conversations/${bad}/events` },
      { method: "GET", path: `/api/conversations/${bad}/messages` },
      { method: "POST", path: `/api/conversations/${bad}/messages` },
      { method: "GET", path: `/api/conversations/${bad}/shared-context` },
      { method: "PUT", path: `/api/conversations/${bad}/shared-context` },
      { method: "POST", path: `/api/conversations/${bad}/shared-context/decisions` },
      { method: "POST", path: `/api/conversations/${bad}/stop` },
      { method: "GET", path: `/api/conversations/${bad}/timeline` },
      { method: "GET", path: `/api/roles/${bad}` },
      { method: "PUT", path: `/api/roles/${bad}` },
      { method: "DELETE", path: `/api/roles/${bad}` },
    ];
  }

  it("answers 400 with a JSON error on every dynamic API route, never 500", async () => {
    for (const bad of BAD) {
      for (const r of apiPaths(bad)) {
        const res = await server.api(r.method, r.path, r.method === "GET" ? undefined : {});
        expect(res.status, `${r.method} ${r.path}`).toBe(400);
        expect(res.json?.error?.code, `${r.method} ${r.path}`).toBe("bad_request");
      }
    }
  });

  it("shows the not-found page (404) for every dynamic page", async () => {
    for (const bad of BAD) {
      for (const p of [`/conversations/${bad}`, `/roles/${bad}`, `/${bad}`, `/roles/${bad}/x`]) {
        const res = await server.request({ path: p });
        expect(res.status, p).toBe(404);
        expect(res.headers["content-type"], p).toMatch(/text\/html/);
        expect(res.text, p).toContain('data-testid="not-found"');
      }
    }
  });

  it("still serves well-formed encodings", async () => {
    expect((await server.api("GET", "/api/roles/%72esearcher")).status).toBe(200);
    expect((await server.api("GET", "/api/roles/%E4%B8%AD")).status).toBe(400); // a bad role id, said so
    expect((await server.request({ path: `/conversations/${convId}` })).status).toBe(200);
  });
});

describe("requests the app cannot serve", () => {
  const get = (target: string, headers = "") => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${headers}\r\n`;

  it("answers a 100 KB URL (or headers) 431 with a JSON error and closes without resetting the connection", async () => {
    for (const bytes of [get(`/api/search?q=${"a".repeat(100_000)}`), get(`/conversations/${"c".repeat(100_000)}`), get("/api/health", `X-Big: ${"b".repeat(100_000)}\r\n`)]) {
      const r = await socketExchange(server.port, bytes);
      expect(r.error).toBeNull();
      expect(r.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
      expect(JSON.parse(r.body).error).toMatchObject({ code: "headers_too_large", message: expect.stringMatching(/larger than 16384 bytes/) });
    }
    // A long query under the header limit is the route's to refuse, as before.
    expect((await server.request({ path: `/api/search?q=${"a".repeat(10_000)}` })).status).toBe(400);
    expect((await server.request({ path: "/api/health" })).status).toBe(200);
  });

  it("answers 501 with Allow to every method it does not serve (TRACE answered 500), on pages and the API alike", async () => {
    for (const method of ["TRACE", "TRACK", "PROPFIND", "MKCOL", "LOCK", "FOOBAR"]) {
      for (const target of ["/", "/api/health", `/api/conversations/${convId}`, "/_next/static/x.js"]) {
        const r = await socketExchange(server.port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
        expect(r.statusLine, `${method} ${target}`).toBe("HTTP/1.1 501 Not Implemented");
        expect(r.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
        expect(JSON.parse(r.body).error.code).toBe("method_not_implemented");
      }
    }
    const connect = await socketExchange(server.port, `CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`);
    expect(connect.statusLine).toBe("HTTP/1.1 501 Not Implemented");
    expect(server.output()).not.toMatch(/HTTP method is unsupported|failed to handle/);
  });
});

describe("binding", () => {
  it("refuses to listen on a non-loopback address without a token", async () => {
    const home = tempDir("astrion-home-");
    mkdirSync(path.join(home, "x"), { recursive: true });
    const { code, output } = await runToExit({ HOST: "0.0.0.0", PORT: "0", ASTRION_HOME: home, ASTRION_TOKEN: "" });
    expect(code).toBe(1);
    expect(output).toMatch(/Refusing to listen on 0\.0\.0\.0/);
    expect(output).toMatch(/ASTRION_TOKEN/);
  });
});

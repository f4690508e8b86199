/**
 * Token mode (ASTRION_TOKEN) against the real running server: the sign-in page can load its
 * assets, health tells outsiders only "up", sign-out expires the cookie, `next` can only name a
 * path of this origin, and wrong tokens are throttled per client socket address (not per any
 * header a client can choose).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startServer, type RawResponse, type TestServer } from "./helpers/server";

const TOKEN = "correct-horse-battery-staple-0123456789";
let server: TestServer;

beforeAll(async () => {
  server = await startServer({ env: { ASTRION_TOKEN: TOKEN } });
});

afterAll(async () => {
  await server?.stop();
});

const bearer = { authorization: `Bearer ${TOKEN}` };

/** A sign-in attempt from `localAddress` (127.0.0.1 unless given: loopback accepts any 127.x source). */
function signIn(token: string, extra: { next?: string; headers?: Record<string, string>; localAddress?: string; to?: TestServer } = {}): Promise<RawResponse> {
  const body = JSON.stringify({ token, next: extra.next });
  const target = extra.to ?? server;
  return rawRequest(target.port, {
    method: "POST",
    path: "/api/auth/signin",
    headers: { "content-type": "application/json", origin: target.url, ...extra.headers },
    body,
    localAddress: extra.localAddress,
  });
}

describe("the sign-in page works in a browser", () => {
  it("serves every script, style and font the sign-in page links to, without the token", async () => {
    const page = await server.request({ path: "/signin" });
    expect(page.status).toBe(200);
    const assets = [...new Set([...page.text.matchAll(/(?:src|href)="(\/_next\/static\/[^"]+)"/g)].map((m) => m[1]!))];
    expect(assets.length).toBeGreaterThan(3);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    expect(assets.some((a) => a.endsWith(".css"))).toBe(true);
    for (const asset of assets) {
      const res = await server.request({ path: asset });
      expect(res.status, asset).toBe(200);
      expect(String(res.headers["content-type"]), asset).toMatch(/javascript|css|font/);
    }
    // Fonts referenced from the stylesheet load too.
    const css = await server.request({ path: assets.find((a) => a.endsWith(".css"))! });
    for (const font of [...css.text.matchAll(/url\((\/_next\/static\/media\/[^)]+)\)/g)].map((m) => m[1]!)) {
      expect((await server.request({ path: font })).status, font).toBe(200);
    }
    // A browser's own icon request is served without the token, not sent to the sign-in page.
    const icon = await server.request({ path: "/favicon.ico" });
    expect(icon.status).toBe(200);
    expect(String(icon.headers["content-type"])).toMatch(/^image\//);
  });

  it("still guards the API and the pages", async () => {
    for (const p of ["/api/roles", "/api/conversations", "/api/models", "/_next/static/..%2F..%2Fapi/roles", "/_next/static/%2e%2e/%2e%2e/api/roles"]) {
      const res = await server.request({ path: p });
      expect([401, 307, 404], p).toContain(res.status);
      expect(res.text, p).not.toMatch(/"roles"|"items"|"models"/);
    }
    for (const p of ["/", "/roles", "/settings"]) {
      const res = await server.request({ path: p });
      expect(res.status, p).toBe(307);
      expect(res.headers.location, p).toBe(`/signin?next=${encodeURIComponent(p)}`);
    }
    expect((await server.request({ path: "/api/roles", headers: bearer })).status).toBe(200);
  });
});

describe("/api/health", () => {
  it("tells a caller without the token only that the server is up", async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer wrong" }, { cookie: "astrion_token=wrong" }];
    for (const headers of attempts) {
      const res = await server.request({ path: "/api/health", headers });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ status: "ok" });
      expect(res.text).not.toContain(server.home);
    }
  });

  it("gives the full report with the token, as a bearer header or the cookie", async () => {
    for (const headers of [bearer, { cookie: `astrion_token=${TOKEN}` }]) {
      const res = await server.request({ path: "/api/health", headers });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ status: "ok", data_root: server.home, problems: [] });
      expect(typeof res.json.pid).toBe("number");
    }
  });
});

describe("sign-out", () => {
  it("expires the cookie, needs no token, and only same-origin JSON may ask for it", async () => {
    const res = await server.api("POST", "/api/auth/signout", {});
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ signed_out: true });
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toMatch(/astrion_token=;/);
    expect(cookie).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i);
    expect(cookie).toMatch(/HttpOnly/i);
    expect((await server.api("POST", "/api/auth/signout", {}, { origin: "https://evil.example" })).status).toBe(403);
    const form = await server.request({ method: "POST", path: "/api/auth/signout", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(form.status).toBe(415);
  });
});

/** `next` values that would leave this origin in some browser. */
const HOSTILE_NEXT = [
  "//evil.example",
  "/\\evil.example",
  "/%09/evil.example",
  "%2F%2Fevil.example",
  "/%2F/evil.example",
  "https:evil.example",
  "https://evil.example/",
  "/\t/evil.example",
  "/\r\n/evil.example",
  "javascript:alert(document.cookie)",
  "data:text/html,<script>alert(1)</script>",
  "/..//evil.example",
  "\\\\evil.example",
];

describe("no open redirect through ?next=", () => {
  it("the sign-in page hands only a same-origin path to its form", async () => {
    for (const next of HOSTILE_NEXT) {
      const page = await server.request({ path: `/signin?next=${encodeURIComponent(next)}` });
      expect(page.status, next).toBe(200);
      expect(page.text, next).toContain('data-next="/"');
      expect(page.text, next).toContain('{\\"next\\":\\"/\\"}'); // the form's props in the page data
      expect(page.text, next).not.toMatch(/(?:href|data-next)="[^"]*evil/);
    }
    // The raw, unencoded forms an attacker's link could carry.
    for (const query of ["next=%2F%09%2Fevil.example", "next=//evil.example", "next=%2F%5Cevil.example", "next=%252F%252Fevil.example"]) {
      const page = await server.request({ path: `/signin?${query}` });
      expect(page.text, query).toContain('data-next="/"');
    }
    const ok = await server.request({ path: `/signin?next=${encodeURIComponent("/roles?x=1")}` });
    expect(ok.text).toContain('data-next="/roles?x=1"');
  });

  it("the sign-in answer names only a same-origin path", async () => {
    for (const next of HOSTILE_NEXT) {
      const res = await signIn(TOKEN, { next });
      expect(res.status, next).toBe(200);
      expect(res.json.next, next).toBe("/");
    }
    expect((await signIn(TOKEN, { next: "/settings" })).json.next).toBe("/settings");
    expect((await signIn(TOKEN)).json.next).toBe("/");
  });
});

describe("sign-in throttling", () => {
  // A lockout far longer than the flood takes to send, so how fast this machine is cannot matter.
  let flooded: TestServer;
  beforeAll(async () => {
    flooded = await startServer({ env: { ASTRION_TOKEN: TOKEN, ASTRION_SIGNIN_LOCKOUT_MS: "600000" } });
  });
  afterAll(async () => {
    await flooded?.stop();
  });

  it("300 wrong guesses at once: 6 are checked, the rest get 429 with Retry-After, whatever headers they send", async () => {
    const guesses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        signIn(`wrong-${i}`, {
          to: flooded,
          // Headers a client controls must not choose the throttle's key.
          headers: { "x-forwarded-for": `203.0.113.${i % 250}`, "x-real-ip": `198.51.100.${i % 250}`, "x-astrion-client-address": `192.0.2.${i % 250}` },
        }),
      ),
    );
    const checked = guesses.filter((g) => g.status === 401);
    const refused = guesses.filter((g) => g.status === 429);
    expect(checked.length).toBe(6); // 5 free guesses, then the one that starts the lockout
    expect(refused.length).toBe(294);
    for (const r of refused) {
      expect(r.json.error.code).toBe("rate_limited");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(500);
    }
    // Even the right token is refused while locked out: a lucky guess would teach nothing.
    expect((await signIn(TOKEN, { to: flooded })).status).toBe(429);
    // Another client (another loopback source address) is not locked out by the first one's guesses.
    expect((await signIn("still-wrong", { to: flooded, localAddress: "127.0.0.2" })).status).toBe(401);
    expect((await signIn(TOKEN, { to: flooded, localAddress: "127.0.0.2" })).status).toBe(200);
  });

  it("accepts the right token once the lockout has passed, and then starts the client afresh", async () => {
    for (let i = 0; i < 6; i++) expect((await signIn(`wrong-${i}`)).status).toBe(401);
    const locked = await signIn(TOKEN);
    expect(locked.status).toBe(429);
    const wait = Number(locked.headers["retry-after"]);
    expect(wait).toBe(1); // the first lockout: ASTRION_SIGNIN_LOCKOUT_MS, default 1 s

    await new Promise((r) => setTimeout(r, wait * 1000 + 200));
    const ok = await signIn(TOKEN);
    expect(ok.status).toBe(200);
    expect(String(ok.headers["set-cookie"])).toMatch(/astrion_token=/);
    // A success starts the client afresh: the next wrong guesses are ordinary 401s.
    for (let i = 0; i < 5; i++) expect((await signIn(`wrong-again-${i}`)).status).toBe(401);
  });
});

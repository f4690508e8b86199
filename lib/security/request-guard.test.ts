import { describe, expect, it } from "vitest";
import {
  checkRequest,
  guardConfigFromEnv,
  hasMalformedEncoding,
  hasValidToken,
  hostName,
  isAllowedHost,
  isAllowedOrigin,
  isPublicAsset,
  safeEqual,
  type GuardRequest,
} from "./request-guard";

const base: GuardRequest = {
  method: "GET",
  pathname: "/api/roles",
  host: "127.0.0.1:3000",
  origin: null,
  contentType: null,
  authorization: null,
  tokenCookie: null,
};
const open = guardConfigFromEnv({});

describe("Host allowlist", () => {
  it.each(["localhost", "localhost:3000", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:3000", "LOCALHOST:1"])("allows %s", (host) => {
    expect(isAllowedHost(host, open)).toBe(true);
  });

  it.each(["evil.example", "evil.example:3000", "127.0.0.1.evil.example", "localhost.evil.example", "attacker", "", "127.0.0.1 evil", "[::2]:3000"])(
    "refuses %s with 403",
    (host) => {
      const verdict = checkRequest({ ...base, host }, open);
      expect(verdict).toMatchObject({ ok: false, status: 403 });
    },
  );

  it("refuses a request with no Host", () => {
    expect(checkRequest({ ...base, host: null }, open)).toMatchObject({ ok: false, status: 403 });
  });

  it("accepts hosts listed in ASTRION_ALLOWED_HOSTS, with any port", () => {
    const config = guardConfigFromEnv({ ASTRION_ALLOWED_HOSTS: "box.lan, Team.Example:9000" });
    expect(isAllowedHost("box.lan:3000", config)).toBe(true);
    expect(isAllowedHost("team.example", config)).toBe(true);
    expect(isAllowedHost("other.lan", config)).toBe(false);
  });

  it("strips ports and keeps IPv6 brackets", () => {
    expect(hostName("[::1]:3000")).toBe("[::1]");
    expect(hostName("Localhost:80")).toBe("localhost");
  });
});

describe("state-changing requests", () => {
  const post = { ...base, method: "POST", contentType: "application/json" };

  it("allows same-origin JSON", () => {
    expect(checkRequest({ ...post, origin: "http://127.0.0.1:3000" }, open)).toEqual({ ok: true });
    expect(checkRequest({ ...post, contentType: "application/json; charset=utf-8" }, open)).toEqual({ ok: true });
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", null])("refuses content-type %s with 415", (contentType) => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      expect(checkRequest({ ...post, method, contentType }, open)).toMatchObject({ ok: false, status: 415 });
    }
  });

  it("takes application/zip on the import route only, by POST, and still checks its Origin", () => {
    const upload = { ...post, pathname: "/api/conversations/import", contentType: "application/zip" };
    expect(checkRequest(upload, open)).toEqual({ ok: true });
    expect(checkRequest({ ...upload, origin: "http://127.0.0.1:3000" }, open)).toEqual({ ok: true });
    expect(checkRequest({ ...upload, origin: "https://evil.example" }, open)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ ...upload, method: "PUT" }, open)).toMatchObject({ ok: false, status: 415 });
    for (const contentType of ["multipart/form-data; boundary=x", "text/plain", "application/x-www-form-urlencoded", "application/octet-stream"]) {
      expect(checkRequest({ ...upload, contentType }, open)).toMatchObject({ ok: false, status: 415 });
    }
    for (const pathname of ["/api/conversations", "/api/conversations/export", "/api/roles/import", "/api/conversations/import/x"]) {
      expect(checkRequest({ ...upload, pathname }, open)).toMatchObject({ ok: false, status: 415 });
    }
  });

  it.each(["https://evil.example", "http://localhost.evil.example:3000", "null", "file://", "not a url"])("refuses Origin %s with 403", (origin) => {
    expect(checkRequest({ ...post, origin }, open)).toMatchObject({ ok: false, status: 403 });
  });

  it("does not check content-type on reads", () => {
    expect(checkRequest({ ...base, contentType: "text/plain" }, open)).toEqual({ ok: true });
  });

  it("accepts only http(s) origins of allowed hosts", () => {
    expect(isAllowedOrigin("http://[::1]:3000", open)).toBe(true);
    expect(isAllowedOrigin("ftp://localhost", open)).toBe(false);
  });
});

describe("access token", () => {
  const config = guardConfigFromEnv({ ASTRION_TOKEN: "s3cret-token" });

  it("is required on API requests when set", () => {
    expect(checkRequest(base, config)).toMatchObject({ ok: false, status: 401, redirectToSignIn: false });
    expect(checkRequest({ ...base, authorization: "Bearer wrong" }, config)).toMatchObject({ ok: false, status: 401 });
  });

  it("is accepted as a bearer header or a cookie", () => {
    expect(checkRequest({ ...base, authorization: "Bearer s3cret-token" }, config)).toEqual({ ok: true });
    expect(checkRequest({ ...base, authorization: "bearer   s3cret-token" }, config)).toEqual({ ok: true });
    expect(checkRequest({ ...base, tokenCookie: "s3cret-token" }, config)).toEqual({ ok: true });
  });

  it("sends pages to the sign-in page, which itself stays reachable", () => {
    expect(checkRequest({ ...base, pathname: "/roles" }, config)).toMatchObject({ ok: false, redirectToSignIn: true });
    expect(checkRequest({ ...base, pathname: "/signin" }, config)).toEqual({ ok: true });
    expect(
      checkRequest({ ...base, method: "POST", pathname: "/api/auth/signin", contentType: "application/json" }, config),
    ).toEqual({ ok: true });
  });

  it("is not required when unset", () => {
    expect(checkRequest(base, open)).toEqual({ ok: true });
  });

  it("compares in constant time but correctly", () => {
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("", "")).toBe(true);
  });
});

describe("token mode in a browser", () => {
  const config = guardConfigFromEnv({ ASTRION_TOKEN: "s3cret-token" });

  it.each([
    "/_next/static/chunks/0az8vxg2gfuhm.js",
    "/_next/static/chunks/3jc_wu0ct-9sg.css",
    "/_next/static/media/inter-latin.woff2",
    "/_next/static/BUILD/_buildManifest.js",
    "/favicon.ico",
    "/icon.png",
    "/icon-192.png",
    "/apple-icon.png",
  ])("serves the asset %s without the token", (pathname) => {
    expect(checkRequest({ ...base, pathname }, config)).toEqual({ ok: true });
    expect(checkRequest({ ...base, method: "HEAD", pathname }, config)).toEqual({ ok: true });
  });

  it.each([
    "/",
    "/roles",
    "/settings",
    "/api/roles",
    "/api/conversations",
    "/_next/data/x/roles.json",
    "/_next/image",
    "/_next/static",
    "/_next/staticx/a.js",
    "/_next/static/..%2F..%2Fapi/roles",
    "/_next/static/%5C..%5Capi",
    "/favicon.ico/../api/roles",
    "/icons/secret",
    "/icon/../api/roles",
  ])("still requires the token for %s", (pathname) => {
    expect(checkRequest({ ...base, pathname }, config)).toMatchObject({ ok: false, status: 401 });
  });

  it("serves assets only to reads", () => {
    expect(isPublicAsset("GET", "/_next/static/a.js")).toBe(true);
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) expect(isPublicAsset(method, "/_next/static/a.js")).toBe(false);
  });

  it("lets anyone sign out (it only removes a cookie), still JSON and same-origin only", () => {
    const post = { ...base, method: "POST", pathname: "/api/auth/signout", contentType: "application/json" };
    expect(checkRequest(post, config)).toEqual({ ok: true });
    expect(checkRequest({ ...post, contentType: "text/plain" }, config)).toMatchObject({ ok: false, status: 415 });
    expect(checkRequest({ ...post, origin: "https://evil.example" }, config)).toMatchObject({ ok: false, status: 403 });
  });

  it("checks a presented token", () => {
    expect(hasValidToken({ authorization: null, tokenCookie: null }, config)).toBe(false);
    expect(hasValidToken({ authorization: "Bearer s3cret-token", tokenCookie: null }, config)).toBe(true);
    expect(hasValidToken({ authorization: null, tokenCookie: "s3cret-token" }, config)).toBe(true);
    expect(hasValidToken({ authorization: null, tokenCookie: "s3cret-tokeN" }, config)).toBe(false);
    expect(hasValidToken({ authorization: null, tokenCookie: null }, open)).toBe(true);
  });
});

describe("malformed percent-encoding", () => {
  it.each(["/api/roles/%C0%AE", "/api/conversations/%E0%A4%A", "/api/roles/%FF%FE", "/api/x/%", "/api/x/%zz", "/api/x/%C3", "/api/x/%ED%A0%80"])(
    "answers 400 on the API for %s",
    (pathname) => {
      expect(hasMalformedEncoding(pathname)).toBe(true);
      expect(checkRequest({ ...base, pathname }, open)).toMatchObject({ ok: false, status: 400, code: "bad_request", notFoundPage: false });
    },
  );

  it.each(["/conversations/%FF", "/roles/%C0%AE", "/%E0%A4%A"])("shows the not-found page for the page %s", (pathname) => {
    expect(checkRequest({ ...base, pathname }, open)).toMatchObject({ ok: false, status: 400, notFoundPage: true });
  });

  it.each(["/api/roles/researcher", "/roles/%E4%B8%AD", "/api/roles/a%2Fb", "/api/roles/%25"])("lets well-formed %s through", (pathname) => {
    expect(hasMalformedEncoding(pathname)).toBe(false);
    expect(checkRequest({ ...base, pathname }, open)).toEqual({ ok: true });
  });

  it("still checks the Host first", () => {
    expect(checkRequest({ ...base, host: "evil.example", pathname: "/api/roles/%FF" }, open)).toMatchObject({ status: 403 });
  });
});

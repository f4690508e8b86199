import { describe, expect, it } from "vitest";
import { checkRequest, guardConfigFromEnv, hostName, isAllowedHost, isAllowedOrigin, safeEqual, type GuardRequest } from "./request-guard";

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

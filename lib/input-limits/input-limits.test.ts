import { describe, expect, it } from "vitest";
import { BODY_LIMITS, bodyLimitFor, DEFAULT_BODY_LIMIT, jsonDepthOver, MAX_BODY_LIMIT, MAX_JSON_DEPTH, parseJsonWithin } from "./index";

describe("bodyLimitFor", () => {
  it("gives each API route its limit and the rest the default", () => {
    expect(bodyLimitFor("POST", "/api/conversations/conv_20260101_000000_001/messages")).toBe(512 * 1024);
    expect(bodyLimitFor("POST", "/api/conversations/c/agents/3/answers")).toBe(512 * 1024);
    expect(bodyLimitFor("PUT", "/api/conversations/c/shared-context")).toBe(128 * 1024);
    expect(bodyLimitFor("POST", "/api/roles/import")).toBe(1024 * 1024);
    expect(bodyLimitFor("PUT", "/api/roles/researcher")).toBe(1024 * 1024);
    expect(bodyLimitFor("PUT", "/api/role-files")).toBe(1024 * 1024);
    expect(bodyLimitFor("POST", "/api/conversations/")).toBe(64 * 1024);
    expect(bodyLimitFor("POST", "/api/conversations/c/stop")).toBe(DEFAULT_BODY_LIMIT);
    expect(bodyLimitFor("DELETE", "/api/roles/researcher")).toBe(DEFAULT_BODY_LIMIT);
    expect(bodyLimitFor("post", "/api/nope")).toBe(DEFAULT_BODY_LIMIT);
  });

  it("does not limit reads, pages or assets", () => {
    expect(bodyLimitFor("GET", "/api/conversations")).toBeNull();
    expect(bodyLimitFor("POST", "/conversations/c")).toBeNull();
    expect(bodyLimitFor("POST", "/apix")).toBeNull();
  });

  it("matches one segment per *, and a long run of slashes in no time", () => {
    expect(bodyLimitFor("POST", "/api/conversations/a/b/messages")).toBe(DEFAULT_BODY_LIMIT);
    expect(bodyLimitFor("POST", `/api/roles${"/".repeat(100_000)}x`)).toBe(DEFAULT_BODY_LIMIT);
  });

  it("knows its largest limit", () => {
    expect(MAX_BODY_LIMIT).toBe(Math.max(...BODY_LIMITS.map((r) => r.limit)));
  });
});

describe("bounded JSON", () => {
  it("finds nesting beyond the limit, ignoring brackets in strings", () => {
    expect(jsonDepthOver("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonDepthOver("[".repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonDepthOver(JSON.stringify({ a: "[".repeat(10_000), b: "\\\"[[[[" }))).toBe(false);
    expect(jsonDepthOver(`{"a":"\\\\"${"[".repeat(100)}`)).toBe(true);
  });

  it("refuses deep, large or broken JSON with a reason, and parses the rest", () => {
    const deep = parseJsonWithin("[".repeat(500_000) + "]".repeat(500_000), 2_000_000);
    expect(deep).toMatchObject({ ok: false, reason: "too_deep" });
    expect(parseJsonWithin('{"a":1}', 3)).toMatchObject({ ok: false, reason: "too_large" });
    expect(parseJsonWithin("{nope", 100)).toMatchObject({ ok: false, reason: "invalid" });
    expect(parseJsonWithin('{"a":[1,{"b":2}]}', 100)).toEqual({ ok: true, value: { a: [1, { b: 2 }] } });
  });
});

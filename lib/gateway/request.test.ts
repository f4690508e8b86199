import { describe, expect, it } from "vitest";
import { resolveHeaders } from "./call";
import { compileMappings } from "./mapping";
import { operationsFromSpec } from "./openapi";
import { buildRequest, headTail, joinUrl, readResponse, redact } from "./request";
import { GatewayMappingsSchema } from "./schema";

const mappings = compileMappings(
  GatewayMappingsSchema.parse({
    fields: [
      { internal: "order_id", api: "orderNo" },
      { internal: "amount_yuan", api: "amt_cents" },
      { internal: "created_at", api: "created" },
    ],
    units: [{ field: "amount_yuan", factor: 100 }],
    times: [{ field: "created_at", api: { pattern: "YYYYMMDD[T]HHmmssZ", timezone: "+08:00" } }],
  }),
);
const spec = {
  openapi: "3.1.0",
  paths: {
    "/orders/{orderNo}": { get: { operationId: "getOrder", parameters: [{ name: "orderNo", in: "path", required: true, schema: { type: "string" } }, { name: "fields", in: "query", schema: { type: "array", items: { type: "string" } } }, { name: "X-Trace", in: "header", schema: { type: "string" } }] } },
    "/orders": { post: { operationId: "createOrder", parameters: [{ name: "dryRun", in: "query", schema: { type: "boolean" } }], requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { amt_cents: { type: "integer" }, created: { type: "string" } } } } } } } },
    "/bulk": { post: { operationId: "bulk", requestBody: { content: { "application/json": { schema: { type: "array", items: { type: "object", properties: { amt_cents: { type: "integer" } } } } } } } } },
  },
};
const ops = new Map(operationsFromSpec("shop", spec, mappings).operations.map((o) => [o.operation, o]));

describe("buildRequest", () => {
  it("fills path, query and header parameters in the API's names", () => {
    const r = buildRequest(ops.get("getOrder")!, { order_id: "A 1/2", fields: ["a", "b"], "X-Trace": "t1" }, mappings, "http://127.0.0.1:9/api/");
    expect(r.method).toBe("GET");
    expect(r.url).toBe("http://127.0.0.1:9/api/orders/A%201%2F2?fields=a&fields=b");
    expect(r.headers["X-Trace"]).toBe("t1");
    expect(r.body).toBeUndefined();
  });

  it("never lets a path argument walk the URL elsewhere (.. and encoded slashes stay one segment)", () => {
    expect(() => buildRequest(ops.get("getOrder")!, { order_id: ".." }, mappings, "http://127.0.0.1:9/api")).toThrow(/path parameter orderNo cannot be "\.\."/);
    expect(() => buildRequest(ops.get("getOrder")!, { order_id: "." }, mappings, "http://127.0.0.1:9/api")).toThrow(/cannot be/);
    expect(buildRequest(ops.get("getOrder")!, { order_id: "../../admin" }, mappings, "http://127.0.0.1:9/api").url).toBe("http://127.0.0.1:9/api/orders/..%2F..%2Fadmin");
    expect(buildRequest(ops.get("getOrder")!, { order_id: "%2e%2e" }, mappings, "http://127.0.0.1:9/api").url).toBe("http://127.0.0.1:9/api/orders/%252e%252e");
    expect(() => joinUrl("http://127.0.0.1:9", "//evil.example/x")).toThrow(/would leave/);
  });

  it("sends the body in the API's dialect: names, units and times mapped", () => {
    const r = buildRequest(ops.get("createOrder")!, { dryRun: true, amount_yuan: 12.34, created_at: "2026-01-31T04:00:00Z" }, mappings, "http://h.example");
    expect(r.url).toBe("http://h.example/orders?dryRun=true");
    expect(JSON.parse(r.body!)).toEqual({ amt_cents: 1234, created: "20260131T120000+0800" });
    expect(r.headers["content-type"]).toBe("application/json");
  });

  it("maps a wrapped (array) body element by element", () => {
    const r = buildRequest(ops.get("bulk")!, { body: [{ amount_yuan: 1 }, { amount_yuan: 2.5 }] }, mappings, "http://h.example");
    expect(JSON.parse(r.body!)).toEqual([{ amt_cents: 100 }, { amt_cents: 250 }]);
  });

  it("refuses a value that does not map, and a header parameter with a line break", () => {
    expect(() => buildRequest(ops.get("createOrder")!, { amount_yuan: 1, created_at: "31.01.2026" }, mappings, "http://h.example")).toThrow(/created_at: "31.01.2026" is not an ISO 8601/);
    expect(() => buildRequest(ops.get("getOrder")!, { order_id: "a", "X-Trace": "a\r\nX-Evil: 1" }, mappings, "http://h.example")).toThrow(/line break/);
  });
});

describe("readResponse", () => {
  it("maps a JSON answer back to the internal dialect", () => {
    const r = readResponse({ status: 200, statusText: "OK", contentType: "application/json; charset=utf-8", text: '{"orderNo":"A","amt_cents":1999,"created":"20260131T120000+0800"}', truncated: false }, mappings, 12_000);
    expect(r).toEqual({ ok: true, text: JSON.stringify({ status: 200, body: { order_id: "A", amount_yuan: 19.99, created_at: "2026-01-31T04:00:00Z" } }) });
  });

  it("makes a non-2xx answer a tool error with the status and a capped body", () => {
    const r = readResponse({ status: 404, statusText: "Not Found", contentType: "application/json", text: JSON.stringify({ orderNo: "A", message: "x".repeat(5000) }), truncated: false }, mappings, 12_000);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/^the API answered HTTP 404 Not Found: \{"order_id":"A"/);
    expect(r.message.length).toBeLessThan(2100);
    expect(r.message).toMatch(/characters elided/);
  });

  it("throws a mapping error when the API's time does not fit its declared format", () => {
    expect(() => readResponse({ status: 200, statusText: "OK", contentType: "application/json", text: '{"created":"2026-01-31"}', truncated: false }, mappings, 12_000)).toThrow(/created_at: "2026-01-31" from the API does not match/);
  });

  it("keeps the head and the tail of a long text answer", () => {
    const text = `HEAD${"m".repeat(50_000)}TAIL`;
    const r = readResponse({ status: 200, statusText: "OK", contentType: "text/plain", text, truncated: false }, mappings, 1000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const body = (JSON.parse(r.text) as { body: string }).body;
    expect(body.startsWith("HEAD")).toBe(true);
    expect(body.endsWith("TAIL")).toBe(true);
    expect(body.length).toBeLessThanOrEqual(1000);
  });
});

describe("secrets", () => {
  it("header values read ${VAR} from the environment, and a missing one is an error naming the variable only", () => {
    const secrets: string[] = [];
    expect(resolveHeaders({ Authorization: "Bearer ${API_TOKEN}", "X-Static": "k-123456" }, { API_TOKEN: "s3cr3t-value" }, secrets)).toEqual({ Authorization: "Bearer s3cr3t-value", "X-Static": "k-123456" });
    expect(secrets).toEqual(expect.arrayContaining(["s3cr3t-value", "Bearer s3cr3t-value", "k-123456"]));
    expect(() => resolveHeaders({ Authorization: "Bearer ${NOPE}" }, {}, [])).toThrow(/header Authorization needs the environment variable NOPE, which is not set/);
  });

  it("redact removes every occurrence", () => {
    expect(redact('{"echo":"Bearer s3cr3t-value","t":"s3cr3t-value"}', ["s3cr3t-value", "Bearer s3cr3t-value"])).toBe('{"echo":"[redacted]","t":"[redacted]"}');
  });

  it("headTail fits its cap", () => {
    expect(headTail("abc", 10)).toBe("abc");
    expect(headTail("a".repeat(500), 100).length).toBeLessThanOrEqual(100);
  });
});

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardServer } from "./body-guard";

// A plain HTTP server whose handler records what reached it, with the guard in front.
const seen: Array<{ url: string; bytes: number }> = [];
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let bytes = 0;
    req.on("data", (c: Buffer) => (bytes += c.length));
    req.on("end", () => {
      seen.push({ url: req.url ?? "", bytes });
      res.end(String(bytes));
    });
  });
  guardServer(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function post(path: string, body: Buffer, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!chunked) headers["content-length"] = String(body.length);
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path, headers, agent: false }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    // two writes: chunked encoding is used when no length was declared
    req.write(body.subarray(0, 1));
    req.end(body.subarray(1));
  });
}

describe("the body guard", () => {
  const limit = 64 * 1024; // POST /api/conversations

  it("answers 413 to a declared length over the route's limit without calling the app", async () => {
    const before = seen.length;
    const res = await post("/api/conversations", Buffer.alloc(limit + 1, 0x78), false);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: { code: "payload_too_large", message: `The request body is larger than ${limit} bytes.` } });
    expect(seen.length).toBe(before);
  });

  it("lets the app see a chunked body only up to one byte past the limit", async () => {
    const res = await post("/api/conversations", Buffer.alloc(5 * limit, 0x78), true);
    expect(res.text).toBe(String(limit + 1));
  });

  it("passes bodies within the limit, and anything outside the API, untouched", async () => {
    expect((await post("/api/conversations", Buffer.alloc(limit, 0x78), true)).text).toBe(String(limit));
    expect((await post("/api/conversations", Buffer.alloc(limit, 0x78), false)).text).toBe(String(limit));
    expect((await post("/somewhere/else", Buffer.alloc(5 * limit, 0x78), false)).text).toBe(String(5 * limit));
  });
});

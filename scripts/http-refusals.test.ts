import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socketExchange } from "../test/helpers/server";
import { clientErrorAnswer, installRefusals, rawAnswer, refuseUnservedMethod, SERVED_METHODS, unservedMethodAnswer } from "./http-refusals.mjs";

let server: http.Server;
let port: number;
const served: string[] = [];

beforeAll(async () => {
  // serve.mjs's arrangement, with a handler that only says which method it was given.
  server = http.createServer((req, res) => {
    if (refuseUnservedMethod(req, res)) return;
    served.push(req.method!);
    res.end("served");
  });
  installRefusals(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (line: string, headers = "") => `${line}\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`;

describe("what the HTTP server answers itself", () => {
  it("answers a request line over maxHeaderSize 431 in the API's error shape, reading the rest instead of resetting", async () => {
    for (const size of [20_000, 100_000, 1_000_000]) {
      const r = await socketExchange(port, request(`GET /api/search?q=${"a".repeat(size)} HTTP/1.1`));
      expect(r.error, `${size}`).toBeNull();
      expect(r.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
      expect(r.headers.connection).toBe("close");
      expect(JSON.parse(r.body)).toEqual({ error: { code: "headers_too_large", message: expect.stringMatching(/larger than 16384 bytes/) } });
    }
    const headers = await socketExchange(port, request("GET / HTTP/1.1", `X-Big: ${"b".repeat(100_000)}\r\n`));
    expect(headers.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(headers.error).toBeNull();
  });

  it("answers methods the app does not serve 501 with Allow, whether Node knows them or not, and CONNECT too", async () => {
    for (const line of ["TRACE / HTTP/1.1", "TRACE /api/health HTTP/1.1", "PROPFIND /api/health HTTP/1.1", "MKCOL /x HTTP/1.1", "FOOBAR /api/health HTTP/1.1", "CONNECT 127.0.0.1:443 HTTP/1.1"]) {
      const r = await socketExchange(port, request(line));
      expect(r.statusLine, line).toBe("HTTP/1.1 501 Not Implemented");
      expect(r.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      expect(JSON.parse(r.body).error.code).toBe("method_not_implemented");
      expect(r.error).toBeNull();
    }
    expect(served).toEqual([]);
  });

  it("lets every served method through", async () => {
    for (const method of SERVED_METHODS) {
      const r = await socketExchange(port, request(`${method} /x HTTP/1.1`));
      expect(r.statusLine, method).toBe("HTTP/1.1 200 OK");
    }
    expect(served).toEqual([...SERVED_METHODS]);
  });

  it("answers other parse errors 400, as Node does", async () => {
    const r = await socketExchange(port, "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n");
    expect(r.statusLine).toBe("HTTP/1.1 400 Bad Request");
    expect(JSON.parse(r.body).error.code).toBe("bad_request");
  });
});

describe("the answers", () => {
  it("are whole HTTP answers with their length", () => {
    const text = rawAnswer(431, "headers_too_large", "too long", { x: "1" });
    const [head, body] = text.split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(head).toContain(`content-length: ${Buffer.byteLength(body!)}`);
    expect(JSON.parse(body!)).toEqual({ error: { code: "headers_too_large", message: "too long" } });
  });

  it("name a method only when it is a token", () => {
    expect(unservedMethodAnswer("TRACE").message).toMatch(/^TRACE is not a method/);
    expect(unservedMethodAnswer("BAD\r\nX").message).toMatch(/^this method is not/);
    expect(clientErrorAnswer("HPE_INVALID_METHOD", 16384).status).toBe(501);
    expect(clientErrorAnswer("ERR_HTTP_REQUEST_TIMEOUT", 16384).status).toBe(408);
    expect(clientErrorAnswer("HPE_SOMETHING", 16384).status).toBe(400);
  });
});

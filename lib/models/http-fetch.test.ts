import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { IDLE_CONNECTION_MS, modelFetch, plainFetch } from "./http-fetch";

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A local server; `sockets` counts the connections it accepted. */
async function serve(handler: Handler): Promise<{ url: string; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => handler(req, body, res));
  });
  server.on("connection", (s) => sockets.push(s));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

async function drain(body: unknown): Promise<string> {
  let text = "";
  for await (const chunk of body as AsyncIterable<Buffer>) text += chunk.toString("utf8");
  return text;
}

describe("modelFetch", () => {
  it("sends the method, headers and body, answers status, headers and text, and keeps one connection for calls in a row", async () => {
    const seen: { method?: string; auth?: string; type?: string; body: string }[] = [];
    const { url, sockets } = await serve((req, body, res) => {
      seen.push({ method: req.method, auth: req.headers.authorization, type: req.headers["content-type"], body });
      res.writeHead(201, { "x-request-id": "req_1", "content-type": "application/json" }).end(JSON.stringify({ echo: body }));
    });
    for (let i = 0; i < 3; i++) {
      const r = await modelFetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: "Bearer sk-x", "content-type": "application/json" }, body: `{"n":${i}}` });
      expect([r.ok, r.status, r.headers.get("x-request-id"), r.url]).toEqual([true, 201, "req_1", `${url}/v1/chat/completions`]);
      expect(await r.json()).toEqual({ echo: `{"n":${i}}` });
    }
    expect(seen).toEqual([0, 1, 2].map((i) => ({ method: "POST", auth: "Bearer sk-x", type: "application/json", body: `{"n":${i}}` })));
    expect(sockets).toHaveLength(1);
  });

  it("closes a connection left idle for IDLE_CONNECTION_MS, and not one in use for longer", async () => {
    const { url, sockets } = await serve((_req, _body, res) => {
      res.writeHead(200);
      res.write("data: first\n\n");
      // an answer that takes longer than the idle timeout is not cut by it
      setTimeout(() => res.end("data: last\n\n"), IDLE_CONNECTION_MS + 300);
    });
    const started = Date.now();
    const r = await modelFetch(url, { method: "POST", body: "{}" });
    expect(await drain(r.body)).toBe("data: first\n\ndata: last\n\n");
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_CONNECTION_MS);
    expect(sockets[0]!.destroyed).toBe(false);
    await new Promise((r) => setTimeout(r, IDLE_CONNECTION_MS + 500));
    expect(sockets[0]!.destroyed).toBe(true);
  });

  it("hands over the body as it streams, before the answer ends", async () => {
    let finish = () => {};
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: one\n\n");
      finish = () => res.end("data: two\n\n");
    });
    const r = await modelFetch(url, { method: "POST", body: "{}" });
    // the Node stream's own iterator (with the event bound), which the SDK iterates: no WHATWG stream in between
    expect(r.body).not.toBeInstanceOf(ReadableStream);
    const it = (r.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect(String((await it.next()).value)).toBe("data: one\n\n");
    finish();
    expect(String((await it.next()).value)).toBe("data: two\n\n");
    expect((await it.next()).done).toBe(true);
  });

  it("hands a streamed answer's event that arrives over many reads to the SDK as it arrives, like other bodies", async () => {
    const event = `data: ${JSON.stringify({ arguments: "\n".repeat(1_000_000) })}\n\n`;
    const pieces = (text: string) => Array.from({ length: Math.ceil(text.length / 16_384) }, (_, i) => text.slice(i * 16_384, (i + 1) * 16_384));
    const sendSlowly = async (res: http.ServerResponse, text: string) => {
      for (const piece of pieces(text)) {
        await new Promise<void>((resolve) => res.write(piece, () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      res.end();
    };
    const streamed = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
      void sendSlowly(res, `data: first\n\n${event}data: [DONE]\n\n`);
    });
    const seen: string[] = [];
    for await (const chunk of (await modelFetch(streamed.url, { method: "POST", body: "{}" })).body as unknown as AsyncIterable<Buffer>) seen.push(chunk.toString("utf8"));
    expect(seen.join("")).toBe(`data: first\n\n${event}data: [DONE]\n\n`);
    // read by read: the SDK (7.x) looks at each byte once, so nothing is gathered for it
    expect(seen.length).toBeGreaterThan(3);
    // nor is a body that is not a stream of events
    const plain = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      void sendSlowly(res, "x".repeat(200_000));
    });
    const reads: number[] = [];
    for await (const chunk of (await modelFetch(plain.url, { method: "POST", body: "{}" })).body as unknown as AsyncIterable<Buffer>) reads.push(chunk.length);
    expect(reads.reduce((a, b) => a + b, 0)).toBe(200_000);
    expect(reads.length).toBeGreaterThan(3);
  });

  it("reads an error answer's text and refuses to read a body twice", async () => {
    const { url } = await serve((_req, _body, res) => res.writeHead(429, "Too Many Requests", { "retry-after": "2" }).end('{"error":{"message":"slow down"}}'));
    const r = await modelFetch(url, { method: "POST", body: "{}" });
    expect([r.ok, r.status, r.statusText, r.headers.get("retry-after")]).toEqual([false, 429, "Too Many Requests", "2"]);
    expect(await r.text()).toBe('{"error":{"message":"slow down"}}');
    await expect(r.text()).rejects.toThrow(/already been read/);
  });

  it("decompresses an answer the server compressed unasked, and asks for none", async () => {
    let asked: string | undefined = "unset";
    const { url } = await serve((req, _body, res) => {
      asked = req.headers["accept-encoding"];
      res.writeHead(200, { "content-encoding": "gzip" }).end(zlib.gzipSync("data: zipped\n\n"));
    });
    const r = await modelFetch(url, { method: "POST", body: "{}" });
    expect(await drain(r.body)).toBe("data: zipped\n\n");
    expect(asked).toBeUndefined();
  });

  it("follows a redirect through fetch, with the same method and body", async () => {
    const { url } = await serve((req, body, res) => {
      if (req.url === "/old") res.writeHead(307, { location: "/new" }).end();
      else res.writeHead(200).end(`${req.method} ${req.url} ${body}`);
    });
    const r = await modelFetch(`${url}/old`, { method: "POST", body: "payload" });
    expect(await r.text()).toBe("POST /new payload");
  });

  it("sends a body that is not a string through fetch", async () => {
    const { url } = await serve((_req, body, res) => res.end(`got ${body}`));
    const r = await modelFetch(url, { method: "POST", body: new TextEncoder().encode("bytes") });
    expect(await r.text()).toBe("got bytes");
  });

  it.each([["a body", {}], ["a streamed answer's body", { "content-type": "text/event-stream" }]])("fails %s being read with an AbortError when the signal aborts, and frees the connection", async (_what, head) => {
    const { url, sockets } = await serve((_req, _body, res) => {
      res.writeHead(200, head);
      res.write("data: first\n\n");
    });
    const controller = new AbortController();
    const r = await modelFetch(url, { method: "POST", body: "{}", signal: controller.signal });
    const it = (r.body as unknown as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    expect(String((await it.next()).value)).toBe("data: first\n\n");
    controller.abort();
    await expect(it.next()).rejects.toMatchObject({ name: "AbortError" });
    await new Promise((r) => setTimeout(r, 50));
    expect(sockets[0]!.destroyed).toBe(true);
  });

  it("rejects at once with an AbortError when the signal has already aborted", async () => {
    const { url } = await serve((_req, _body, res) => res.end("never"));
    await expect(modelFetch(url, { method: "POST", body: "{}", signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("fails a body whose connection is cut before the end, rather than ending it cleanly", async () => {
    const { url } = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-length": "1000" });
      res.write("data: partial");
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const r = await modelFetch(url, { method: "POST", body: "{}" });
    await expect(drain(r.body)).rejects.toThrow();
  });

  it("rejects with the socket's error code when nothing listens", async () => {
    const { url } = await serve(() => {});
    servers[0]!.closeAllConnections();
    await new Promise((r) => servers.pop()!.close(r));
    await expect(modelFetch(url, { method: "POST", body: "{}" })).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });
});

describe("plainFetch", () => {
  it("is Node's own fetch under Next's patched one, and the global fetch of the moment otherwise", () => {
    const real = globalThis.fetch;
    try {
      const patched = Object.assign(async () => new Response("patched"), { _nextOriginalFetch: real });
      globalThis.fetch = patched as unknown as typeof fetch;
      expect(plainFetch()).toBe(real);
      globalThis.fetch = real;
      expect(plainFetch()).toBe(real);
      // read at each call, not when the module loaded: a fetch set later is the one used
      const later = Object.assign(async () => new Response("later"), {});
      globalThis.fetch = later as unknown as typeof fetch;
      expect(plainFetch()).toBe(later);
    } finally {
      globalThis.fetch = real;
    }
  });
});

/**
 * An SSE client for tests against the real server: opens `GET …/events`, parses every block as
 * EventSource does (comments, `id:`, `data:` checked against the runtime's event schema) and lets
 * a test wait for what it expects.
 */
import http from "node:http";
import { RuntimeEventSchema, type RuntimeEvent } from "@/lib/contracts/events";
import { PresenceFrameSchema, type PresenceFrame } from "@/lib/contracts/presence";
import type { TestServer } from "./server";

/** One event of a stream: its `id:` and the parsed runtime event. */
interface SseEvent {
  id: string | undefined;
  event: RuntimeEvent;
}

/** An open SSE response read incrementally, as EventSource would. */
export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw(): string;
  comments: string[];
  events: SseEvent[];
  /** The `event: presence` frames (lib/presence/stream.ts), checked against their schema and apart from the runtime's events. */
  presence: PresenceFrame[];
  /** The server ended the response (not `close()` from this side). */
  ended: boolean;
  /** Resolves once `done()` holds; rejects after `timeoutMs`. */
  waitFor(done: () => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens a stream on `server` from `localAddress` (default 127.0.0.1), read as EventSource would. */
export function openSse(server: TestServer, path: string, headers: Record<string, string> = {}, opts: { localAddress?: string } = {}): Promise<SseConnection> {
  const port = server.port;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, headers: { host: `127.0.0.1:${port}`, accept: "text/event-stream", ...headers }, setHost: false, localAddress: opts.localAddress },
      (res) => {
        let raw = "";
        let buffer = "";
        const waiters = new Set<() => void>();
        const conn: SseConnection = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          raw: () => raw,
          comments: [],
          events: [],
          presence: [],
          ended: false,
          waitFor: (done, timeoutMs = 10_000) =>
            new Promise<void>((ok, fail) => {
              if (done()) return ok();
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`timed out; received so far:\n${raw}`));
              }, timeoutMs);
              const check = () => {
                if (!done()) return;
                clearTimeout(timer);
                waiters.delete(check);
                ok();
              };
              waiters.add(check);
            }),
          close: () => req.destroy(),
        };
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          raw += chunk;
          buffer += chunk;
          let cut: number;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let id: string | undefined;
            let data: string | undefined;
            let name: string | undefined;
            for (const line of block.split("\n")) {
              if (line.startsWith(":")) conn.comments.push(line.slice(1).trim());
              else if (line.startsWith("id: ")) id = line.slice(4);
              else if (line.startsWith("event: ")) name = line.slice(7);
              else if (line.startsWith("data: ")) data = line.slice(6);
            }
            if (name === "presence" && data !== undefined) {
              if (id !== undefined) throw new Error(`a presence frame carries an id: ${block}`);
              const parsed = PresenceFrameSchema.safeParse(JSON.parse(data));
              if (!parsed.success) throw new Error(`the server sent a presence frame outside the contract: ${data}`);
              conn.presence.push(parsed.data);
            } else if (data !== undefined) {
              const parsed = RuntimeEventSchema.safeParse(JSON.parse(data));
              if (!parsed.success) throw new Error(`the server sent an event outside the contract: ${data}`);
              conn.events.push({ id, event: parsed.data });
            }
          }
          for (const check of [...waiters]) check();
        });
        res.on("end", () => {
          conn.ended = true;
          for (const check of [...waiters]) check();
        });
        res.on("error", () => undefined); // destroyed by close()
        resolve(conn);
      },
    );
    req.on("error", (error) => {
      if ((error as NodeJS.ErrnoException).code !== "ECONNRESET") reject(error);
    });
    req.end();
  });
}

/**
 * A viewer of a conversation's SSE stream as a browser's EventSource is one: it reconnects when
 * the stream ends (after a `: resync`, a restart) with the last id it got as `Last-Event-ID`, and
 * keeps what it was shown: the leader's message texts from every snapshot and `message` event,
 * and how many snapshots it got (a resync is one more).
 */
import http from "node:http";
import type { TestServer } from "./server";

/** A viewer; see the file's header. */
export interface SseViewer {
  /** The leader's message texts shown so far, in the order they came. */
  readonly texts: string[];
  /** How many snapshots it got (1 at the start, one more per resync). */
  readonly snapshots: number;
  /** How many times it (re)connected. */
  readonly connections: number;
  close(): void;
}

/** Opens a viewer of conversation `id` on `server`. */
export function openViewer(server: TestServer, id: string): SseViewer {
  const texts: string[] = [];
  let snapshots = 0;
  let connections = 0;
  let lastId: string | null = null;
  let closed = false;
  let current: http.ClientRequest | null = null;
  const add = (text: unknown) => {
    if (typeof text === "string" && !texts.includes(text)) texts.push(text);
  };
  const connect = () => {
    if (closed) return;
    connections++;
    const headers: Record<string, string> = { host: `127.0.0.1:${server.port}` };
    if (lastId) headers["last-event-id"] = lastId;
    let over = false;
    // Once per connection (its response's end and its request's error may both come).
    const again = () => {
      if (over) return;
      over = true;
      current = null;
      if (!closed) setTimeout(connect, 200);
    };
    const req = http.request({ host: "127.0.0.1", port: server.port, path: `/api/conversations/${id}/events`, headers }, (res) => {
      let buf = "";
      res.on("data", (chunk: Buffer) => {
        buf += chunk.toString();
        for (let end = buf.indexOf("\n\n"); end >= 0; end = buf.indexOf("\n\n")) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const idLine = block.split("\n").find((l) => l.startsWith("id: "));
          const data = block.split("\n").find((l) => l.startsWith("data: "));
          if (idLine) lastId = idLine.slice(4);
          if (!data) continue;
          const event = JSON.parse(data.slice(6)) as { type: string; snapshot?: { leader: { messages: Array<{ content?: unknown }> } }; message?: { content?: unknown }; agent_id?: number | null };
          if (event.type === "snapshot") {
            snapshots++;
            for (const m of event.snapshot!.leader.messages) add(m.content);
          } else if (event.type === "message" && event.agent_id === null) add(event.message?.content);
        }
      });
      res.on("end", again);
      res.on("error", () => undefined);
    });
    req.on("error", again);
    req.end();
    current = req;
  };
  connect();
  return {
    texts,
    get snapshots() {
      return snapshots;
    },
    get connections() {
      return connections;
    },
    close() {
      closed = true;
      current?.destroy();
    },
  };
}

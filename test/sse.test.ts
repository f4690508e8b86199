/**
 * `GET /api/conversations/[id]/events` against the real running server: SSE headers, the
 * opening comment, the snapshot as the first event, resume by Last-Event-ID, and the documented
 * errors. (Live events from agent runs are covered with the runtime.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, startServer, tempDir, type TestServer } from "./helpers/server";
import { openSse as openSseOn, type SseConnection } from "./helpers/sse";
import { until } from "./helpers/wait";

let server: TestServer;
let convId: string;

beforeAll(async () => {
  server = await startServer();
  const created = await server.api("POST", "/api/conversations", { title: "实时 SSE", project_path: tempDir("astrion-project-") });
  expect(created.status).toBe(201);
  convId = created.json.conversation.id;
});

afterAll(async () => {
  await server?.stop();
});

/** Opens a stream on `to` (default: this file's server) from `localAddress` (default 127.0.0.1). */
function openSse(path: string, headers: Record<string, string> = {}, opts: { to?: TestServer; localAddress?: string } = {}): Promise<SseConnection> {
  return openSseOn(opts.to ?? server, path, headers, { localAddress: opts.localAddress });
}

describe("GET /api/conversations/[id]/events", () => {
  it("answers an event stream that opens with a comment and the conversation's snapshot", async () => {
    const conn = await openSse(`/api/conversations/${convId}/events`);
    try {
      expect(conn.status).toBe(200);
      expect(conn.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      expect(conn.headers["cache-control"]).toBe("no-cache, no-transform");
      expect(conn.headers["x-accel-buffering"]).toBe("no");
      expect(conn.headers.connection).toBe("keep-alive");
      expect(conn.headers["content-encoding"]).toBeUndefined();
      await conn.waitFor(() => conn.events.length >= 1);
      expect(conn.raw().startsWith(": connected\n\nretry: 2000\n\n")).toBe(true);
      const first = conn.events[0]!;
      expect(first.id).toMatch(/^[0-9a-f]{16}-[1-9]\d*-\d+$/);
      expect(first.event.type).toBe("snapshot");
      if (first.event.type !== "snapshot") return;
      expect(first.event.snapshot.conversation).toMatchObject({ id: convId, title: "实时 SSE", model_key: "offline" });
      expect(first.event.snapshot.leader.messages).toEqual([]);
      expect(first.event.snapshot.agents).toEqual([]);
      expect(first.event.snapshot.model_label).toMatch(/offline/i);
    } finally {
      conn.close();
    }
  });

  it("resumes from a Last-Event-ID while the conversation is held, and resyncs a foreign one or one from before a release", async () => {
    // Another viewer holds the conversation (its numbering and replay buffer) meanwhile.
    const holder = await openSse(`/api/conversations/${convId}/events`);
    await holder.waitFor(() => holder.events.length >= 1);
    const first = await openSse(`/api/conversations/${convId}/events`);
    await first.waitFor(() => first.events.length >= 1);
    first.close();
    const lastId = first.events.at(-1)!.id!;

    const resumes: { path: string; headers: Record<string, string> }[] = [
      { path: `/api/conversations/${convId}/events`, headers: { "last-event-id": lastId } },
      { path: `/api/conversations/${convId}/events?lastEventId=${encodeURIComponent(lastId)}`, headers: {} },
    ];
    for (const resume of resumes) {
      const conn = await openSse(resume.path, resume.headers);
      try {
        expect(conn.status).toBe(200);
        await conn.waitFor(() => conn.comments.includes("connected"));
        await new Promise((r) => setTimeout(r, 400));
        expect(conn.events.filter((e) => e.event.type === "snapshot")).toEqual([]);
      } finally {
        conn.close();
      }
    }

    const stale = await openSse(`/api/conversations/${convId}/events`, { "last-event-id": "0123456789abcdef-1-5" });
    try {
      await stale.waitFor(() => stale.events.length >= 1);
      expect(stale.events[0]!.event.type).toBe("snapshot");
    } finally {
      stale.close();
    }

    // The last viewer leaves and nothing runs: the conversation is let go, numbering and all.
    holder.close();
    await until("the conversation let go", async () => ((await server.api("GET", "/api/health")).json.resident.bus_topics === 0 ? true : null));
    const late = await openSse(`/api/conversations/${convId}/events`, { "last-event-id": lastId });
    try {
      await late.waitFor(() => late.events.length >= 1);
      expect(late.events[0]!.event.type).toBe("snapshot");
      expect(late.events[0]!.id).not.toBe(lastId);
      expect(late.events[0]!.id!.split("-").slice(0, 2)).not.toEqual(lastId.split("-").slice(0, 2));
    } finally {
      late.close();
    }
  });

  it("keeps serving after clients disconnect", async () => {
    for (let i = 0; i < 5; i++) {
      const conn = await openSse(`/api/conversations/${convId}/events`);
      await conn.waitFor(() => conn.events.length >= 1);
      conn.close();
    }
    const res = await server.api("GET", `/api/conversations/${convId}`);
    expect(res.status).toBe(200);
    const again = await openSse(`/api/conversations/${convId}/events`);
    await again.waitFor(() => again.events.length >= 1);
    again.close();
  });

  it("answers 400 JSON for a malformed id and 404 JSON for a conversation that does not exist", async () => {
    const bad = await server.request({ path: "/api/conversations/not-an-id/events" });
    expect(bad.status).toBe(400);
    expect(bad.headers["content-type"]).toMatch(/application\/json/);
    expect(bad.json.error.code).toBe("validation_failed");

    const missing = await server.request({ path: "/api/conversations/conv_20990101_000000_001/events" });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toMatch(/application\/json/);
    expect(missing.json.error.code).toBe("not_found");
  });

  it("refuses a foreign Host (DNS rebinding) with 403", async () => {
    const res = await server.request({ path: `/api/conversations/${convId}/events`, headers: { host: "evil.example:80" } });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain("data:");
  });
});

describe("snapshots shared between streams", () => {
  it("streams opened at once on an unchanged conversation get the same snapshot frame; a rename is seen by the next one", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "shared snapshot", project_path: tempDir("astrion-project-") });
    const id = created.json.conversation.id as string;
    const conns = await Promise.all(Array.from({ length: 10 }, () => openSse(`/api/conversations/${id}/events`)));
    try {
      await Promise.all(conns.map((c) => c.waitFor(() => c.events.length >= 1)));
      // Each stream's own presence frames (its viewer, who else is there) differ; the runtime's bytes do not.
      const frames = conns.map((c) => {
        const runtime = c.raw().replace(/event: presence\n[^\n]*\n\n/g, "");
        return runtime.slice(runtime.indexOf("id: "));
      });
      for (const f of frames) expect(f).toBe(frames[0]);
      expect(conns[0]!.events[0]!.event).toMatchObject({ type: "snapshot", snapshot: { conversation: { title: "shared snapshot" } } });

      // A rename publishes no event, yet a stream opened after it must not get the old snapshot.
      expect((await server.api("PATCH", `/api/conversations/${id}`, { title: "renamed" })).status).toBe(200);
      const after = await openSse(`/api/conversations/${id}/events`);
      try {
        await after.waitFor(() => after.events.length >= 1);
        expect(after.events[0]!.event).toMatchObject({ type: "snapshot", snapshot: { conversation: { title: "renamed" } } });
      } finally {
        after.close();
      }
    } finally {
      for (const c of conns) c.close();
    }
  });
});

describe("caps on open streams", () => {
  let capped: TestServer;
  let id: string;
  const PER_CLIENT = 3;
  const TOTAL = 5;

  beforeAll(async () => {
    capped = await startServer({ env: { ASTRION_SSE_MAX_PER_CLIENT: String(PER_CLIENT), ASTRION_SSE_MAX_TOTAL: String(TOTAL) } });
    const created = await capped.api("POST", "/api/conversations", { title: "caps", project_path: tempDir("astrion-project-") });
    id = created.json.conversation.id;
  });
  afterAll(async () => {
    await capped?.stop();
  });

  const path = (conv = id) => `/api/conversations/${conv}/events`;

  /** Opens a stream that is expected to be accepted, and waits for its snapshot. */
  async function accepted(localAddress = "127.0.0.1"): Promise<SseConnection> {
    const conn = await openSse(path(), {}, { to: capped, localAddress });
    expect(conn.status, `a stream from ${localAddress}`).toBe(200);
    await conn.waitFor(() => conn.events.length >= 1);
    return conn;
  }

  /** A request that is expected to be refused (a refusal ends at once, so a plain request will do). */
  async function refused(localAddress = "127.0.0.1", headers: Record<string, string> = {}, conv = id) {
    const res = await rawRequest(capped.port, { path: path(conv), headers: { accept: "text/event-stream", ...headers }, localAddress });
    expect(res.status, `refused from ${localAddress}`).toBe(429);
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    expect(res.json.error.code).toBe("rate_limited");
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    return res.json.error;
  }

  /** Waits until a stream from `localAddress` is accepted again (the server notices a closed socket asynchronously). */
  async function acceptedOnceFreed(localAddress = "127.0.0.1"): Promise<SseConnection> {
    return until(`a free stream slot for ${localAddress}`, async () => {
      const conn = await openSse(path(), {}, { to: capped, localAddress });
      if (conn.status === 200) return conn;
      conn.close();
      return null;
    });
  }

  it("refuses a client beyond its cap with 429, JSON and Retry-After, whatever headers it sends; other clients still get in", async () => {
    const mine = [await accepted(), await accepted(), await accepted()];
    const error = await refused();
    expect(error.details).toMatchObject({ scope: "client", limit: PER_CLIENT });
    await refused("127.0.0.1", { "x-forwarded-for": "203.0.113.7", "x-astrion-client-address": "192.0.2.1" });
    // Refused before anything is looked up or opened (no conversation loaded, no lease taken): even for one that does not exist.
    await refused("127.0.0.1", {}, "conv_20200101_000000_001");
    const other = await accepted("127.0.0.2");

    // Closing a stream gives its slot back.
    mine[0]!.close();
    const again = await acceptedOnceFreed();
    await refused();
    for (const c of [...mine, other, again]) c.close();
  });

  it("refuses everyone beyond the total cap, and every slot comes back when the streams close", async () => {
    const open = [await acceptedOnceFreed("127.0.0.1"), await acceptedOnceFreed("127.0.0.1"), await acceptedOnceFreed("127.0.0.2")];
    open.push(await acceptedOnceFreed("127.0.0.3"), await acceptedOnceFreed("127.0.0.4"));
    const error = await refused("127.0.0.5");
    expect(error.details).toMatchObject({ scope: "total", limit: TOTAL });
    for (const c of open) c.close();
    const reopened: SseConnection[] = [];
    for (let i = 0; i < PER_CLIENT; i++) reopened.push(await acceptedOnceFreed("127.0.0.1"));
    reopened.push(await acceptedOnceFreed("127.0.0.6"), await acceptedOnceFreed("127.0.0.7"));
    await refused("127.0.0.8");
    for (const c of reopened) c.close();
  });
});

/**
 * Presence shared by two instances of the built server on one PostgreSQL and one Redis (issue
 * 32 on issue 31's backend): viewers whose streams are on instance A are counted on B, an
 * acknowledgment sent to B (not A) shows on A's streams, and a stream closing on A is seen on
 * B. The data folder holds nothing of it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PresenceFrame, PresentPerson } from "@/lib/contracts/presence";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { startServer, tempDir, type TestServer } from "../helpers/server";
import { openSse, type SseConnection } from "../helpers/sse";
import { until } from "../helpers/wait";

const pg = pgClusterForFile();
let redis: TestRedis;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  redis = await startRedis();
  const env = { ASTRION_DATABASE_URL: await pg.cluster.createDatabase(), ASTRION_REDIS_URL: redis.url, ASTRION_OWNER_NAME: "Lin" };
  // One shared folder for the settings, as instances of one deployment have.
  const home = tempDir("astrion-presence-instances-");
  a = await startServer({ home, env });
  b = await startServer({ home, env });
}, 240_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.dispose();
});

const viewerOf = (conn: SseConnection) => conn.presence.find((f): f is Extract<PresenceFrame, { type: "hello" }> => f.type === "hello")?.viewer;
const lastPeople = (conn: SseConnection): PresentPerson[] | undefined => conn.presence.filter((f): f is Extract<PresenceFrame, { type: "people" }> => f.type === "people").at(-1)?.people;
const countOn = async (server: TestServer, id: string) => (await server.api("GET", "/api/presence")).json.counts[id] as number | undefined;

describe("presence across instances", () => {
  // Both streams on A: an instance streams the conversations it holds (a stream on B of a
  // conversation A runs answers 409 until requests are forwarded to the lease holder). What B
  // serves here is presence alone: the acknowledgments and the counts.
  it("viewers on A are counted on B, an acknowledgment sent to B shows on A's streams, and leaving A is seen on B", async () => {
    const created = await a.api("POST", "/api/conversations", { title: "two instances", project_path: tempDir("astrion-project-") });
    expect(created.status, created.text).toBe(201);
    const id = created.json.conversation.id as string;

    const one = await openSse(a, `/api/conversations/${id}/events`);
    const two = await openSse(a, `/api/conversations/${id}/events`);
    await one.waitFor(() => viewerOf(one) !== undefined && lastPeople(one)?.length === 1);
    await two.waitFor(() => viewerOf(two) !== undefined && lastPeople(two)?.length === 1);
    await until("B counts A's viewers (one person)", async () => (await countOn(b, id)) === 1);

    // The acknowledgment of A's viewer reaches B, which knows it from Redis; A's streams show it.
    const ack = await b.api("POST", `/api/conversations/${id}/presence`, { viewer: viewerOf(one), drawer: 2, typing: 2 });
    expect(ack.json).toEqual({ known: true });
    await two.waitFor(() => lastPeople(two)?.[0]?.drawers.join() === "2");
    await two.waitFor(() => lastPeople(two)?.[0]?.typing.join() === "2");
    expect((await b.api("POST", `/api/conversations/${id}/presence`, { viewer: "v_not_a_viewer_at_all", drawer: null, typing: null })).json).toEqual({ known: false });

    one.close();
    await two.waitFor(() => lastPeople(two)?.[0]?.drawers.length === 0);
    two.close();
    await until("nobody left, seen from B", async () => (await countOn(b, id)) === undefined);
    expect(await countOn(a, id)).toBeUndefined();
    // Nothing of it in the data folder: no file holds a viewer's id.
    for (const viewer of [viewerOf(one)!, viewerOf(two)!]) {
      const holding = readdirSync(a.home, { recursive: true, encoding: "utf8" }).filter((rel) => {
        const file = path.join(a.home, rel);
        return statSync(file).isFile() && readFileSync(file).includes(viewer);
      });
      expect(holding).toEqual([]);
    }
  });
});

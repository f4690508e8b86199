/**
 * People on the scaled backend (issues 31 and 32): two built servers, each with its OWN data
 * folder, on one PostgreSQL and one Redis, in team mode (ASTRION_TOKEN). People, sessions and
 * invitations are in PostgreSQL, so what one instance does holds on the other at its very next
 * request: an invitation made on A is taken on B, the session B gave works on A, a role change on
 * A applies on B, and a removal on A signs the person out on B at once (every session of theirs,
 * whichever instance made it). Neither data folder holds a people database.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { openSse } from "../helpers/sse";
import { startServer, tempDir, type RawResponse, type TestServer } from "../helpers/server";

const pg = pgClusterForFile();
const TOKEN = "scaled-people-token-0123456789ab";
const OWNER = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a-long-password-1";

let redis: TestRedis;
let a: TestServer;
let b: TestServer;

/** The `name=value` pairs of the cookies an answer set, as a browser sends them back. */
function cookiesOf(res: RawResponse): string {
  const set = res.headers["set-cookie"] ?? [];
  return (Array.isArray(set) ? set : [set]).map((c) => c.split(";")[0]!).join("; ");
}

/** An invitation of `role` made on `on` by the owner. */
async function invite(on: TestServer, role: string): Promise<string> {
  const res = await on.api("POST", "/api/people", { role }, OWNER);
  expect(res.status, res.text).toBe(201);
  return res.json.token as string;
}

/** Joins on `on` with `token`: the person's id and their browser's cookie header. */
async function join(on: TestServer, token: string, name: string): Promise<{ id: string; cookie: string }> {
  const res = await on.api("POST", "/api/people/join", { token, name, password: PASSWORD });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.person.id as string, cookie: cookiesOf(res) };
}

const me = async (on: TestServer, cookie: string) => (await on.api("GET", "/api/people/me", undefined, { cookie })).json.me as { id: string; name: string; role: string } | null;

beforeAll(async () => {
  redis = await startRedis();
  const databaseUrl = await pg.cluster.createDatabase();
  const env = { ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url, ASTRION_TOKEN: TOKEN, ASTRION_LEADER_BATCH_MS: "0" };
  // Both at once: the schema's and Better Auth's migrations are each under an advisory lock.
  [a, b] = await Promise.all([startServer({ home: tempDir("astrion-people-a-"), env }), startServer({ home: tempDir("astrion-people-b-"), env })]);
}, 400_000);

afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await redis?.dispose();
});

describe("people on two instances with their own data folders, one PostgreSQL + Redis", () => {
  it("an invitation made on A is taken on B once; B's session works on A; the name and password sign in on A", async () => {
    expect(a.home).not.toBe(b.home);
    const token = await invite(a, "editor");
    expect(((await b.api("GET", "/api/people", undefined, OWNER)).json.invitations as unknown[]).length).toBe(1);
    const lin = await join(b, token, "Lin");
    expect(await me(a, lin.cookie)).toMatchObject({ id: lin.id, name: "Lin", role: "editor" });
    // The link is used up for both instances.
    expect((await a.api("POST", "/api/people/join", { token, name: "Eve", password: PASSWORD })).status).toBe(409);
    const signed = await a.api("POST", "/api/auth/signin", { name: "lin", password: PASSWORD });
    expect(signed.status, signed.text).toBe(200);
    expect(await me(b, cookiesOf(signed))).toMatchObject({ id: lin.id });
    // Each instance's data folder holds no people database: they are in PostgreSQL.
    for (const s of [a, b]) expect(existsSync(path.join(s.home, "people"))).toBe(false);
  });

  it("a role change on A applies on B from the person's next request", async () => {
    const someone = await join(b, await invite(b, "viewer"), "Rui");
    const create = () => b.api("POST", "/api/conversations", { title: "after the change", project_path: tempDir() }, { cookie: someone.cookie });
    expect((await create()).status).toBe(403);
    const changed = await a.api("PATCH", `/api/people/${someone.id}`, { role: "editor" }, OWNER);
    expect(changed.status, changed.text).toBe(200);
    const created = await create();
    expect(created.status, created.text).toBe(201);
    expect((await me(b, someone.cookie))?.role).toBe("editor");
  });

  it("a removal on A signs the person out on B at once: every session of theirs, made on either instance, is 401 at its next request", async () => {
    const gone = await join(a, await invite(a, "editor"), "Gone");
    const onB = cookiesOf(await b.api("POST", "/api/auth/signin", { name: "Gone", password: PASSWORD }));
    const stays = await join(b, await invite(a, "editor"), "Stays");
    for (const [s, cookie] of [[b, gone.cookie], [a, onB], [b, onB], [a, stays.cookie]] as const) expect((await s.api("GET", "/api/conversations", undefined, { cookie })).status).toBe(200);
    // Each has a conversation's live stream open on B.
    const conv = (await a.api("POST", "/api/conversations", { title: "Watched", project_path: tempDir("astrion-people-project-") }, OWNER)).json.conversation.id as string;
    const streams = await Promise.all([gone.cookie, stays.cookie].map((cookie) => openSse(b, `/api/conversations/${conv}/events`, { cookie, origin: b.url })));
    for (const stream of streams) await stream.waitFor(() => stream.presence.some((f) => f.type === "hello"));
    const removed = await a.api("DELETE", `/api/people/${gone.id}`, undefined, OWNER);
    expect(removed.json).toEqual({ removed: gone.id, sessions_revoked: 2 });
    // The removed person's stream on B is closed by the server; the other person's stays open.
    await streams[0]!.waitFor(() => streams[0]!.ended, 5_000);
    expect(streams[1]!.ended).toBe(false);
    streams[1]!.close();
    for (const s of [b, a]) {
      for (const cookie of [gone.cookie, onB]) expect((await s.api("GET", "/api/conversations", undefined, { cookie })).status).toBe(401);
      expect((await s.api("GET", "/api/conversations", undefined, { cookie: stays.cookie })).status).toBe(200);
    }
    expect((await b.api("POST", "/api/auth/signin", { name: "Gone", password: PASSWORD })).status).toBe(401);
    expect(((await b.api("GET", "/api/people", undefined, OWNER)).json.people as Array<{ name: string }>).map((p) => p.name)).not.toContain("Gone");
  });
});

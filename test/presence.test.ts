/**
 * Presence on the real built server (issue 32), over its SSE streams: in team mode the owner and
 * an invited editor see each other as soon as their streams open, each tab counted once per
 * person; an acknowledgment carries the drawer and the typing; a stream closing removes its
 * viewer at once, a stream whose acknowledgments stop is dropped within the timeout while it
 * stays open; another person cannot keep someone's viewer alive; a viewer is present and may
 * acknowledge; the index counts people; nothing of it reaches the data folder. On an unconfigured
 * localhost the person at the machine is the owner, present once however many tabs.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PresenceFrame, PresentPerson } from "@/lib/contracts/presence";
import { startServer, tempDir, type RawResponse, type TestServer } from "./helpers/server";
import { openSse, type SseConnection } from "./helpers/sse";
import { until } from "./helpers/wait";

const TOKEN = "presence-token-correct-horse-0123456789";
const OWNER = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a-long-password-1";

let server: TestServer;
let local: TestServer;

beforeAll(async () => {
  [server, local] = await Promise.all([
    startServer({ env: { ASTRION_TOKEN: TOKEN, ASTRION_OWNER_NAME: "Mei" } }),
    startServer({ env: { ASTRION_OWNER_NAME: "Lin" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([server?.stop(), local?.stop()]);
});

function cookiesOf(res: RawResponse): string {
  const set = res.headers["set-cookie"] ?? [];
  return (Array.isArray(set) ? set : [set]).map((c) => c.split(";")[0]!).join("; ");
}

/** A person invited with `role` and joined: their id, name and browser cookie. */
async function person(role: string, name: string): Promise<{ id: string; name: string; cookie: string }> {
  const invited = await server.api("POST", "/api/people", { role }, OWNER);
  expect(invited.status, invited.text).toBe(201);
  const joined = await server.api("POST", "/api/people/join", { token: invited.json.token, name, password: PASSWORD });
  expect(joined.status, joined.text).toBe(201);
  return { id: joined.json.person.id, name, cookie: cookiesOf(joined) };
}

async function conversation(on: TestServer, headers: Record<string, string> = {}): Promise<string> {
  const res = await on.api("POST", "/api/conversations", { title: "presence", project_path: tempDir("astrion-project-") }, headers);
  expect(res.status, res.text).toBe(201);
  return res.json.conversation.id as string;
}

const viewerOf = (conn: SseConnection) => conn.presence.find((f): f is Extract<PresenceFrame, { type: "hello" }> => f.type === "hello")?.viewer;
const lastPeople = (conn: SseConnection): PresentPerson[] | undefined => conn.presence.filter((f): f is Extract<PresenceFrame, { type: "people" }> => f.type === "people").at(-1)?.people;
const names = (conn: SseConnection) => (lastPeople(conn) ?? []).map((p) => p.person.name).sort().join(",");

async function open(on: TestServer, id: string, headers: Record<string, string>): Promise<SseConnection> {
  const conn = await openSse(on, `/api/conversations/${id}/events`, headers);
  expect(conn.status).toBe(200);
  await conn.waitFor(() => viewerOf(conn) !== undefined && lastPeople(conn) !== undefined);
  return conn;
}

const beat = (on: TestServer, id: string, body: Record<string, unknown>, headers: Record<string, string>) => on.api("POST", `/api/conversations/${id}/presence`, body, headers);

/** Every file of the data folder with its size, modification time and digest. */
function folderState(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(root, { recursive: true, encoding: "utf8" })) {
    const file = path.join(root, rel);
    const stat = statSync(file);
    if (!stat.isFile()) continue;
    out[rel] = `${stat.size}:${stat.mtimeMs}:${createHash("sha256").update(readFileSync(file)).digest("hex")}`;
  }
  return out;
}

/** Whether any file of the data folder holds `text`. */
function folderHolds(root: string, text: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" }).filter((rel) => {
    const file = path.join(root, rel);
    return statSync(file).isFile() && readFileSync(file).includes(text);
  });
}

describe("presence in team mode", () => {
  it("two people see each other, their drawers and typing; a closed stream is gone at once; nothing is written to disk", async () => {
    const ann = await person("editor", "Ann Lee");
    const id = await conversation(server, OWNER);
    const mei = await open(server, id, OWNER);
    const meiAgain = await open(server, id, OWNER); // a second tab of the owner's
    const annTab = await open(server, id, { cookie: ann.cookie });
    await mei.waitFor(() => names(mei) === "Ann Lee,Mei");
    await annTab.waitFor(() => names(annTab) === "Ann Lee,Mei");
    // Two tabs of Mei's, one person.
    expect(lastPeople(mei)).toHaveLength(2);
    expect((await server.api("GET", "/api/presence", undefined, OWNER)).json.counts[id]).toBe(2);
    expect((await server.api("GET", "/api/presence", undefined, { cookie: ann.cookie })).json.counts[id]).toBe(2);

    const before = folderState(server.home);
    const annViewer = viewerOf(annTab)!;
    const ack = await beat(server, id, { viewer: annViewer, drawer: 1, typing: "leader" }, { cookie: ann.cookie });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.json).toEqual({ known: true });
    await mei.waitFor(() => lastPeople(mei)?.find((p) => p.person.id === ann.id)?.typing.join() === "leader");
    expect(lastPeople(mei)?.find((p) => p.person.id === ann.id)).toEqual({ person: { id: ann.id, name: "Ann Lee" }, drawers: [1], typing: ["leader"] });
    // Sent: typing stops at once; the drawer stays.
    await beat(server, id, { viewer: annViewer, drawer: 1, typing: null }, { cookie: ann.cookie });
    await mei.waitFor(() => lastPeople(mei)?.find((p) => p.person.id === ann.id)?.typing.length === 0);

    // Mei cannot speak for Ann's tab.
    expect((await beat(server, id, { viewer: annViewer, drawer: 2, typing: 2 }, OWNER)).json).toEqual({ known: false });
    expect(lastPeople(mei)?.find((p) => p.person.id === ann.id)?.drawers).toEqual([1]);

    annTab.close();
    await mei.waitFor(() => names(mei) === "Mei");
    expect((await beat(server, id, { viewer: annViewer, drawer: null, typing: null }, { cookie: ann.cookie })).json).toEqual({ known: false });
    meiAgain.close();
    await until("Mei's other tab let go", async () => (await server.api("GET", "/api/presence", undefined, OWNER)).json.counts[id] === 1);

    // Presence is never written to disk: no file changed, none holds a viewer id.
    expect(folderState(server.home)).toEqual(before);
    for (const viewer of [annViewer, viewerOf(mei)!, viewerOf(meiAgain)!]) expect(folderHolds(server.home, viewer)).toEqual([]);
    mei.close();
  });

  it("a viewer is present and may acknowledge, though it changes nothing", async () => {
    const vic = await person("viewer", "Vic");
    const id = await conversation(server, OWNER);
    const mei = await open(server, id, OWNER);
    const vicTab = await open(server, id, { cookie: vic.cookie });
    await mei.waitFor(() => names(mei) === "Mei,Vic");
    const ack = await beat(server, id, { viewer: viewerOf(vicTab), drawer: 2, typing: null }, { cookie: vic.cookie });
    expect(ack.status, ack.text).toBe(200);
    expect(ack.json).toEqual({ known: true });
    await mei.waitFor(() => lastPeople(mei)?.find((p) => p.person.id === vic.id)?.drawers.join() === "2");
    // Reading and being present are allowed; a message is still refused.
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "hi" }, { cookie: vic.cookie })).status).toBe(403);
    vicTab.close();
    mei.close();
  });

  it("drops a viewer whose acknowledgments stopped within 30 s, though its stream stays open", async () => {
    const bo = await person("editor", "Bo");
    const id = await conversation(server, OWNER);
    const mei = await open(server, id, OWNER);
    const quiet = await open(server, id, { cookie: bo.cookie });
    await mei.waitFor(() => names(mei) === "Bo,Mei");
    // Mei's tab acknowledges every heartbeat, as a page does; Bo's never does (a half-open connection).
    let acked = 0;
    const acking = setInterval(() => {
      const heartbeats = mei.presence.filter((f) => f.type === "heartbeat").length;
      if (heartbeats > acked) {
        acked = heartbeats;
        void beat(server, id, { viewer: viewerOf(mei), drawer: null, typing: null }, OWNER);
      }
    }, 200);
    try {
      await mei.waitFor(() => names(mei) === "Mei", 30_000);
      expect(quiet.presence.some((f) => f.type === "heartbeat")).toBe(true);
      expect((await beat(server, id, { viewer: viewerOf(quiet), drawer: null, typing: null }, { cookie: bo.cookie })).json).toEqual({ known: false });
      expect((await server.api("GET", "/api/presence", undefined, OWNER)).json.counts[id]).toBe(1);
    } finally {
      clearInterval(acking);
      quiet.close();
      mei.close();
    }
  }, 45_000);
});

describe("presence on an unconfigured localhost", () => {
  it("the person at the machine is the owner, present once however many tabs", async () => {
    const id = await conversation(local);
    const one = await open(local, id, {});
    const two = await open(local, id, {});
    await two.waitFor(() => names(two) === "Lin");
    expect(lastPeople(two)).toEqual([{ person: { id: "owner", name: "Lin" }, drawers: [], typing: [] }]);
    expect((await local.api("GET", "/api/presence")).json.counts[id]).toBe(1);
    expect((await beat(local, id, { viewer: viewerOf(one), drawer: 3, typing: 3 }, {})).json).toEqual({ known: true });
    await two.waitFor(() => lastPeople(two)?.[0]?.typing.join() === "3");
    one.close();
    two.close();
    await until("nobody left", async () => (await local.api("GET", "/api/presence")).json.counts[id] === undefined);
  });
});

/**
 * People, sign-in and roles on the real built server in team mode (ASTRION_TOKEN set, issue 32),
 * a fake OpenAI-compatible model scripting a sub-agent's command that waits for approval:
 * an invitation works once and expires; a role change holds from the next request; removal ends
 * every session at once; a viewer is refused every change (403, in English and in Chinese); the
 * token still signs in as the owner and a forged identity header is nobody; a person's message
 * records its author and the leader's model reads their name; an approval records its approver;
 * a role edit records its editor.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { en } from "@/lib/i18n/dictionaries/en";
import { zhCN } from "@/lib/i18n/dictionaries/zh-cn";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type RawResponse, type TestServer } from "./helpers/server";
import { openSse } from "./helpers/sse";
import { until } from "./helpers/wait";

const TOKEN = "people-token-correct-horse-0123456789";
const OWNER = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a-long-password-1";

type Msg = { role: string; content?: unknown };

/** The leader delegates once; the agent asks to run one command (which waits for approval), then reports. */
function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  const isLeader = ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");
  if (isLeader) {
    if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "runner", task: "Run the build." } }]);
    return fakeText("Noted.");
  }
  if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ id: "pp_1", name: "run_command", arguments: { command: "echo people-approved" } }]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "Ran it." } }]);
}

let fake: FakeOpenAI;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  writeFileSync(path.join(home, "agents", "runner.md"), "---\nname: runner\ndescription: Runs commands for the people tests\npermissions: [read, execute]\n---\nYou run commands.\n");
  server = await startServer({ home, env: { ASTRION_TOKEN: TOKEN, ASTRION_OWNER_NAME: "Mei", FAKE_OPENAI_KEY: "sk-fake-people", ASTRION_LEADER_BATCH_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** The `name=value` pairs of the cookies an answer set, as a browser sends them back. */
function cookiesOf(res: RawResponse): string {
  const set = res.headers["set-cookie"] ?? [];
  return (Array.isArray(set) ? set : [set]).map((c) => c.split(";")[0]!).join("; ");
}

let counter = 0;
/** A unique display name. */
const nameOf = (base: string) => `${base} ${Date.now().toString(36)}${(counter++).toString(36)}`;

async function invite(role: string, to: TestServer = server): Promise<string> {
  const res = await to.api("POST", "/api/people", { role }, OWNER);
  expect(res.status, res.text).toBe(201);
  expect(res.json.path).toBe(`/join#${res.json.token}`);
  return res.json.token as string;
}

/** Joins with a new invitation of `role`: the person and their browser's cookie header. */
async function person(role: string): Promise<{ id: string; name: string; cookie: string }> {
  const name = nameOf(role);
  const res = await server.api("POST", "/api/people/join", { token: await invite(role), name, password: PASSWORD });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.person.id, name, cookie: cookiesOf(res) };
}

const as = (p: { cookie: string }, extra: Record<string, string> = {}) => ({ cookie: p.cookie, ...extra });

describe("invitations", () => {
  it("a link works once: the invitee picks a name and password and is signed in; the same link again is refused", async () => {
    const token = await invite("editor");
    const listed = await server.api("GET", "/api/people", undefined, OWNER);
    expect(listed.json.invitations).toEqual([expect.objectContaining({ role: "editor" })]);
    expect(listed.text).not.toContain(token);
    const name = nameOf("Ada");
    const joined = await server.api("POST", "/api/people/join", { token, name, password: PASSWORD });
    expect(joined.status).toBe(201);
    expect(joined.json.person).toMatchObject({ name, role: "editor" });
    const me = await server.api("GET", "/api/people/me", undefined, { cookie: cookiesOf(joined) });
    expect(me.json).toEqual({ me: { id: joined.json.person.id, name, role: "editor", via: "password" }, team: true });

    const again = await server.api("POST", "/api/people/join", { token, name: nameOf("Eve"), password: PASSWORD });
    expect(again.status).toBe(409);
    expect(again.json.error.details.reason).toBe("used");
    expect((await server.api("GET", "/api/people", undefined, OWNER)).json.people.map((p: { name: string }) => p.name)).toContain(name);

    // Later, the name and password sign in; a wrong password does not.
    expect((await server.api("POST", "/api/auth/signin", { name, password: "not-the-password" })).status).toBe(401);
    const signed = await server.api("POST", "/api/auth/signin", { name: name.toUpperCase(), password: PASSWORD });
    expect(signed.status).toBe(200);
    expect((await server.api("GET", "/api/people/me", undefined, { cookie: cookiesOf(signed) })).json.me.name).toBe(name);
  });

  it("an expired link lets nobody in (ASTRION_INVITE_TTL_HOURS)", async () => {
    const short = await startServer({ env: { ASTRION_TOKEN: TOKEN, ASTRION_INVITE_TTL_HOURS: "0.0002" } });
    try {
      const token = await invite("viewer", short);
      await new Promise((r) => setTimeout(r, 1500));
      const res = await short.api("POST", "/api/people/join", { token, name: "Late", password: PASSWORD });
      expect(res.status).toBe(409);
      expect(res.json.error.details.reason).toBe("expired");
      expect((await short.api("POST", "/api/people/join", { token: "no-such-invitation-0000", name: "Nobody", password: PASSWORD })).status).toBe(404);
      expect((await short.api("GET", "/api/people", undefined, OWNER)).json.people).toHaveLength(1);
    } finally {
      await short.stop();
    }
  });

  it("the People API is the owner's: nobody signed in gets 401, an editor 403", async () => {
    expect((await server.api("GET", "/api/people")).status).toBe(401);
    const editor = await person("editor");
    const res = await server.api("POST", "/api/people", { role: "approver" }, as(editor));
    expect(res.status).toBe(403);
    expect(res.json.error.details).toEqual({ reason: "role", role: "editor", needed: "owner" });
  });
});

describe("roles", () => {
  it("a viewer reads everything and is refused every change with 403, in the page's language", async () => {
    const viewer = await person("viewer");
    expect((await server.api("GET", "/api/conversations", undefined, as(viewer))).status).toBe(200);
    // Health gives a signed-in person the whole report (the Settings page), an outsider only "up".
    expect((await server.api("GET", "/api/health", undefined, as(viewer))).json.data_root).toBe(server.home);
    expect((await server.api("GET", "/api/health")).json).toEqual({ status: "ok" });
    const english = await server.api("POST", "/api/conversations", { title: "no", project_path: tempDir() }, as(viewer));
    expect(english.status).toBe(403);
    expect(english.json.error).toEqual({
      code: "forbidden",
      message: en["people.forbidden"].replace("{role}", en["people.role.viewer"]).replace("{needed}", en["people.role.editor"]),
      details: { reason: "role", role: "viewer", needed: "editor" },
    });
    const chinese = zhCN["people.forbidden"].replace("{role}", zhCN["people.role.viewer"]).replace("{needed}", zhCN["people.role.editor"]);
    for (const headers of [as(viewer, { "accept-language": "zh-CN,zh;q=0.9" }), { cookie: `${viewer.cookie}; astrion_locale=zh-CN` }]) {
      const res = await server.api("POST", "/api/conversations", { title: "no", project_path: tempDir() }, headers);
      expect(res.status).toBe(403);
      expect(res.json.error.message).toBe(chinese);
    }
    for (const [method, p] of [["PUT", "/api/roles/runner"], ["PUT", "/api/models/default"], ["POST", "/api/conversations/conv_20260101_000000_001/stop"]] as const) {
      expect((await server.api(method, p, {}, as(viewer))).status, `${method} ${p}`).toBe(403);
    }
  });

  it("a role change holds from the person's next request", async () => {
    const someone = await person("viewer");
    const create = () => server.api("POST", "/api/conversations", { title: "after the change", project_path: tempDir() }, as(someone));
    expect((await create()).status).toBe(403);
    const changed = await server.api("PATCH", `/api/people/${someone.id}`, { role: "editor" }, OWNER);
    expect(changed.json.person.role).toBe("editor");
    expect((await create()).status).toBe(201);
    expect((await server.api("GET", "/api/people/me", undefined, as(someone))).json.me.role).toBe("editor");
  });
});

describe("removal", () => {
  it("signs the person out everywhere at once: the next request of every session is 401, and their open streams close", async () => {
    const gone = await person("editor");
    const phone = cookiesOf(await server.api("POST", "/api/auth/signin", { name: gone.name, password: PASSWORD }));
    const stays = await person("editor");
    for (const cookie of [gone.cookie, phone, stays.cookie]) expect((await server.api("GET", "/api/conversations", undefined, { cookie })).status).toBe(200);
    // Live streams open on one conversation: two of the removed person's (two sessions), one of another's.
    const conv = (await server.api("POST", "/api/conversations", { title: "Watched", project_path: tempDir("astrion-people-watched-") }, OWNER)).json.conversation.id as string;
    const streams = await Promise.all([gone.cookie, phone, stays.cookie].map((cookie) => openSse(server, `/api/conversations/${conv}/events`, { cookie, origin: server.url })));
    for (const stream of streams) await stream.waitFor(() => stream.presence.some((f) => f.type === "hello"));
    const removed = await server.api("DELETE", `/api/people/${gone.id}`, undefined, OWNER);
    expect(removed.json).toEqual({ removed: gone.id, sessions_revoked: 2 });
    // The server closes both of the removed person's streams; the other person's stays open.
    for (const stream of streams.slice(0, 2)) await stream.waitFor(() => stream.ended, 5_000);
    expect(streams[2]!.ended).toBe(false);
    streams[2]!.close();
    for (const cookie of [gone.cookie, phone]) {
      expect((await server.api("GET", "/api/conversations", undefined, { cookie })).status).toBe(401);
      const page = await server.request({ path: "/", headers: { cookie } });
      expect(page.status).toBe(307);
      expect(page.headers.location).toBe("/signin?next=%2F");
    }
    expect((await server.api("POST", "/api/auth/signin", { name: gone.name, password: PASSWORD })).status).toBe(401);
    expect((await server.api("GET", "/api/conversations", undefined, { cookie: stays.cookie })).status).toBe(200);
  });
});

describe("the access token", () => {
  it("still signs in as the owner, as a cookie or a bearer header", async () => {
    const signed = await server.api("POST", "/api/auth/signin", { token: TOKEN });
    expect(signed.status).toBe(200);
    for (const headers of [{ cookie: cookiesOf(signed) }, OWNER]) {
      expect((await server.api("GET", "/api/people/me", undefined, headers)).json.me).toEqual({ id: "owner", name: "Mei", role: "owner", via: "token" });
    }
  });

  it("an identity header a client sends is nobody's", async () => {
    const forged = Buffer.from(JSON.stringify({ id: "owner", name: "Mei", role: "owner", via: "token" })).toString("base64url");
    expect((await server.api("GET", "/api/conversations", undefined, { "x-astrion-identity": forged })).status).toBe(401);
    const viewer = await person("viewer");
    expect((await server.api("POST", "/api/people", { role: "editor" }, as(viewer, { "x-astrion-identity": forged }))).status).toBe(403);
  });
});

describe("who did what", () => {
  it("a person's message records its author, the leader's model reads their name, and an approval records its approver", async () => {
    const editor = await person("editor");
    const approver = await person("approver");
    const created = await server.api("POST", "/api/conversations", { title: "who did what", project_path: tempDir() }, as(editor));
    const id = created.json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Please run the build", author: "Someone else" }, as(editor))).status).toBe(202);

    const leader = (await server.api("GET", `/api/conversations/${id}/messages`, undefined, OWNER)).json.messages as Array<{ content: string; metadata?: Record<string, unknown> }>;
    expect(leader.find((m) => m.content === "Please run the build")?.metadata?.author).toEqual({ id: editor.id, name: editor.name, via: "password" });
    const seen = await until("the leader's model call", () =>
      fake.requests.find((r) => JSON.stringify(r.body ?? {}).includes("Please run the build") && JSON.stringify(r.body ?? {}).includes("create_sub_agent")),
    );
    const userTurns = ((seen.body as FakeRequestBody).messages as Msg[]).filter((m) => m.role === "user").map((m) => String(m.content));
    expect(userTurns).toContain(`[${editor.name}] Please run the build`);

    const agentId = await until("the command waiting for approval", async () => {
      const agents = (await server.api("GET", `/api/conversations/${id}/agents`, undefined, OWNER)).json.agents as Array<{ metadata: { agent_id: number; status: string; pending_tool_calls?: Array<{ tool_call_id: string }> } }>;
      const a = agents.find((x) => x.metadata.status === "waiting" && x.metadata.pending_tool_calls?.some((p) => p.tool_call_id === "pp_1"));
      return a?.metadata.agent_id;
    });
    const approve = (headers: Record<string, string>) => server.api("POST", `/api/conversations/${id}/agents/${agentId}/approvals`, { tool_call_id: "pp_1", decision: "approve" }, headers);
    expect((await approve(as(editor))).status).toBe(403);
    expect((await approve(as(approver))).status).toBe(200);

    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`, undefined, OWNER)).json.records as Array<{ action: string; from_agent: string; envelope: { author?: unknown; payload: Record<string, unknown> } }>;
    const message = timeline.find((r) => r.action === "user_message")!;
    expect(message.from_agent).toBe(`person:${editor.id}`);
    expect(message.envelope.author).toEqual({ id: editor.id, name: editor.name, via: "password" });
    // The agent's request for approval is an "approval" record too; the decision is the one a person made.
    const approval = timeline.find((r) => r.action === "approval" && r.envelope.author !== undefined)!;
    expect(approval.from_agent).toBe(`person:${approver.id}`);
    expect(approval.envelope.author).toEqual({ id: approver.id, name: approver.name, via: "password" });
    expect(approval.envelope.payload).toMatchObject({ decision: "approve", by: approver.name });
    const theirs = (await server.api("GET", `/api/conversations/${id}/timeline?person=${approver.id}`, undefined, OWNER)).json.records as Array<{ action: string }>;
    expect(theirs.map((r) => r.action)).toEqual(["approval"]);

    const markdown = await server.request({ path: `/api/conversations/${id}/export`, headers: OWNER });
    expect(markdown.text).toContain(`Person: ${editor.name}`);
  });

  it("a role edit records who made it, and the activity filter shows one person's changes", async () => {
    const editor = await person("editor");
    const roleId = `people-role-${Date.now().toString(36)}`;
    const created = await server.api("POST", "/api/roles", { fields: { id: roleId, name: "People role", description: "Made by an editor" }, body: "You help." }, as(editor));
    expect(created.status, created.text).toBe(201);
    const records = (await server.api("GET", `/api/activity?person=${editor.id}`, undefined, OWNER)).json.records as Array<{ action: string; resource: string; envelope: { author: { name: string } } }>;
    expect(records.map((r) => [r.action, r.resource, r.envelope.author.name])).toEqual([
      ["person_joined", `person:${editor.id}`, editor.name],
      ["role_created", `role:${roleId}`, editor.name],
    ]);
    const all = (await server.api("GET", "/api/activity", undefined, OWNER)).json.records as Array<{ action: string }>;
    expect(all.map((r) => r.action)).toEqual(expect.arrayContaining(["person_invited", "person_joined", "person_role_changed", "person_removed", "role_created"]));
  });
});

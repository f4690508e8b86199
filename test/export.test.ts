/**
 * Export and import of conversations through the real server (issue 9): a team run on the fake
 * model exported as a Markdown report and as a zip, deleted, imported back byte for byte, imported
 * again (409), as a copy, over itself (with confirmation), in bulk, while running, and hostile zips
 * refused with nothing written.
 */
import http from "node:http";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportEntries, exportManifest, readImportArchive, zipStream } from "@/lib/export/archive";
import { fixtureFolder } from "@/test/helpers/export/folder";
import { craftZip } from "@/test/helpers/export/craft-zip";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { firstEvents, rawRequest, startServer, tempDir, type RawResponse, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };

let fake: FakeOpenAI;
let server: TestServer;
let project: string;

const msgs = (body: FakeRequestBody) => (body.messages ?? []) as Msg[];
const isLeader = (body: FakeRequestBody) => JSON.stringify(body.tools ?? []).includes("create_sub_agent");
const scenario = (body: FakeRequestBody) => /Conversation: (\S+)/.exec(String(msgs(body)[0]?.content ?? ""))?.[1] ?? "unknown";
const called = (body: FakeRequestBody, name: string) => msgs(body).some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));
const reports = (body: FakeRequestBody) => msgs(body).filter((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: ")).length;

function handler(body: FakeRequestBody): Script {
  const s = scenario(body);
  const last = msgs(body).at(-1);
  if (isLeader(body)) {
    if (!called(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: `Read the README for ${s}` } }], { content: `Delegating ${s}.` });
    if (last?.role === "user" && String(last.content).includes("continue please")) return fakeText(`CONTINUED ${s}`);
    return fakeText(reports(body) >= 1 ? `SUMMARY ${s}: the README was read` : "waiting");
  }
  if (s === "exp-live") return fakeText("agent working slowly", { contentChunks: 4, end: "stall", chunksBeforeEnd: 2 });
  if (!called(body, "read_file")) return fakeToolCalls([{ name: "read_file", arguments: { path: "README.md" } }]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `README says: Demo project (${s})` } }]);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url, { timeouts: { idle_ms: 60_000, first_response_ms: 60_000 } });
  project = tempDir("astrion-project-");
  writeFileSync(path.join(project, "README.md"), "# Demo\n\nA demo project.\n");
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake", ASTRION_LEADER_BATCH_MS: "30" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function runConversation(title: string): Promise<string> {
  const created = await server.api("POST", "/api/conversations", { title, project_path: project });
  expect(created.status).toBe(201);
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: `Please read the README (${title})` })).status).toBe(202);
  await until(`summary of ${title}`, async () => (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => String(m.content).startsWith(`SUMMARY ${title}`)));
  await until(`${title} idle`, async () => (await server.api("GET", `/api/conversations/${id}`)).json.conversation.phase === "IDLE");
  return id;
}

/** A GET answered as bytes. */
function download(p: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: p, method: "GET", headers: { host: `127.0.0.1:${server.port}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

function upload(zip: Uint8Array | Buffer, query = "", headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(server.port, {
    method: "POST",
    path: `/api/conversations/import${query}`,
    headers: { "content-type": "application/zip", origin: `http://127.0.0.1:${server.port}`, ...headers },
    body: Buffer.from(zip),
  });
}

/** Every file of a conversation folder on disk, by relative path (the step log left out). */
function folderFiles(id: string): Map<string, Buffer> {
  const root = path.join(server.home, "conversations", id);
  const out = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(root, rel))) {
      const child = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(root, child)).isDirectory()) walk(child);
      else if (name !== "steps.jsonl") out.set(child, readFileSync(path.join(root, child)));
    }
  };
  walk("");
  return out;
}

function expectSameFiles(actual: Map<string, Uint8Array>, expected: Map<string, Uint8Array>) {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [rel, data] of expected) expect(Buffer.from(actual.get(rel)!).equals(Buffer.from(data)), rel).toBe(true);
}

async function listed(): Promise<string[]> {
  return (await server.api("GET", "/api/conversations?status=all&limit=100")).json.items.map((i: { id: string }) => i.id);
}

describe("export and import through the server", () => {
  let id: string;
  let zip: Buffer;
  let original: Map<string, Buffer>;

  it("exports a finished run as a Markdown report: leader thread, folded agent, token usage, timeline summary", async () => {
    id = await runConversation("exp-a");
    const res = await download(`/api/conversations/${id}/export?format=md`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/markdown; charset=utf-8");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="${id}-exp-a.md"`);
    const md = res.body.toString("utf8");
    expect(md).toMatch(/^# exp-a\n/);
    expect(md).toContain("## Team Leader thread");
    expect(md).toContain("Please read the README (exp-a)");
    expect(md).toContain("SUMMARY exp-a: the README was read");
    expect(md).toContain("- Tool call `create_sub_agent`");
    expect(md).toMatch(/> \*\*Completion report\*\* from Researcher\\_\d+/);
    expect(md).toMatch(/<details>\n<summary>Researcher_\d+ · researcher · completed · \d+ messages<\/summary>/);
    expect(md).toContain("A demo project."); // the agent's read_file result, inside its folded section
    expect(md).toMatch(/## Token usage\n\n.*\n.*\n\| Total \| [1-9]/);
    expect(md).toMatch(/## Timeline summary\n\n\d+ records in 1 trace\(s\)/);
  });

  it("exports the zip of the seed folder with its manifest, byte for byte", async () => {
    const res = await download(`/api/conversations/${id}/export?format=zip`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/zip");
    expect(res.headers["content-disposition"]).toBe(`attachment; filename="${id}-exp-a.zip"`);
    zip = res.body;
    const archive = await readImportArchive(new Uint8Array(zip));
    expect(archive.manifest).toMatchObject({ format: "astrion-conversations", format_version: 1, conversation_ids: [id] });
    expect(archive.manifest.app_version).toMatch(/^\d+\.\d+\.\d+/);
    original = folderFiles(id);
    expect([...original.keys()]).toEqual(expect.arrayContaining(["metadata.json", "messages.json", "timeline.jsonl", "agents/1/metadata.json", "agents/1/messages.json"]));
    expectSameFiles(archive.conversations[0]!.files, original);
  });

  it("restores a deleted conversation from the zip under the same id, byte-identical, listed and openable", async () => {
    expect((await server.api("DELETE", `/api/conversations/${id}`)).status).toBe(200);
    expect((await server.api("GET", `/api/conversations/${id}`)).status).toBe(404);
    const res = await upload(zip);
    expect(res.status).toBe(201);
    expect(res.json.imported).toEqual([{ source_id: id, id, title: "exp-a", outcome: "created" }]);
    expectSameFiles(folderFiles(id), original);
    expect(await listed()).toContain(id);
    const snapshot = (await firstEvents(server, id))[0]!;
    expect(snapshot.type).toBe("snapshot");
    expect(JSON.stringify(snapshot.snapshot.leader.messages)).toContain("SUMMARY exp-a");
    const state = JSON.parse(readFileSync(path.join(server.home, "state.json"), "utf8"));
    expect(state.agent_id_counter).toBeGreaterThanOrEqual(1);
  });

  it("answers 409 when the id is taken, writing nothing, and offers the other modes", async () => {
    const before = folderFiles(id);
    const res = await upload(zip);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe("conflict");
    expect(res.json.error.details).toEqual({ taken: [id], running: [], modes: ["new_id", "overwrite"] });
    expectSameFiles(folderFiles(id), before);
  });

  it("imports a copy under a new id that lists, opens and can be continued", async () => {
    const res = await upload(zip, "?mode=new_id");
    expect(res.status).toBe(201);
    const copy = res.json.imported[0];
    expect(copy).toMatchObject({ source_id: id, title: "exp-a (imported copy)", outcome: "copied" });
    expect(copy.id).not.toBe(id);
    expect(await listed()).toEqual(expect.arrayContaining([id, copy.id]));
    // The copy's title is its own everywhere: metadata.json, messages.json and the index.
    expect((await server.api("GET", `/api/conversations/${copy.id}`)).json.conversation.title).toBe("exp-a (imported copy)");
    expect(JSON.parse(readFileSync(path.join(server.home, "conversations", copy.id, "messages.json"), "utf8")).title).toBe("exp-a (imported copy)");
    const index = JSON.parse(readFileSync(path.join(server.home, "conversations", "index.json"), "utf8"));
    expect([index[id].title, index[copy.id].title]).toEqual(["exp-a", "exp-a (imported copy)"]);
    // The history search finds the imported messages (the leader's summary) under the new id.
    await until("the copy in the history search", async () =>
      ((await server.api("GET", `/api/search?q=${encodeURIComponent("README was read")}`)).json.hits as Array<{ conversation_id: string }>).some((h) => h.conversation_id === copy.id),
    );
    const messages = (await server.api("GET", `/api/conversations/${copy.id}/messages`)).json;
    expect(messages.id).toBe(copy.id);
    expect(readFileSync(path.join(server.home, "conversations", copy.id, "timeline.jsonl"), "utf8")).not.toContain(id);
    expect((await server.api("POST", `/api/conversations/${copy.id}/messages`, { content: "continue please" })).status).toBe(202);
    await until("the copy continues", async () => (await server.api("GET", `/api/conversations/${copy.id}/messages`)).json.messages.some((m: Msg) => m.content === "CONTINUED exp-a"));
    // The original was not touched.
    expect((await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => m.content === "CONTINUED exp-a")).toBe(false);
  });

  it("numbers further copies, in the importing person's language", async () => {
    const second = await upload(zip, "?mode=new_id");
    expect(second.json.imported[0].title).toBe("exp-a (imported copy 2)");
    const chinese = await upload(zip, "?mode=new_id", { "accept-language": "zh-CN,zh;q=0.9" });
    expect(chinese.status).toBe(201);
    expect(chinese.json.imported[0].title).toBe("exp-a（导入的副本）");
    for (const copy of [second.json.imported[0].id, chinese.json.imported[0].id]) {
      expect((await server.api("DELETE", `/api/conversations/${copy}`)).status).toBe(200);
    }
  });

  it("overwrites only with an explicit confirmation", async () => {
    const unconfirmed = await upload(zip, "?mode=overwrite");
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: "confirm" })]));
    // Change the conversation, then replace it with the exported state.
    expect((await server.api("PATCH", `/api/conversations/${id}`, { title: "renamed meanwhile" })).status).toBe(200);
    const res = await upload(zip, "?mode=overwrite&confirm=true");
    expect(res.status).toBe(201);
    expect(res.json.imported).toEqual([{ source_id: id, id, title: "exp-a", outcome: "replaced" }]);
    expect((await server.api("GET", `/api/conversations/${id}`)).json.conversation.title).toBe("exp-a");
    expectSameFiles(folderFiles(id), original);
  });

  it("bulk-exports two conversations as one zip that restores both", async () => {
    const second = await runConversation("exp-b");
    const res = await fetch(`${server.url}/api/conversations/export`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ids: [id, second] }) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="astrion-conversations-\d{14}\.zip"$/);
    const bytes = Buffer.from(await res.arrayBuffer());
    const archive = await readImportArchive(new Uint8Array(bytes));
    expect(archive.conversations.map((c) => c.id)).toEqual([id, second]);
    const files = [folderFiles(id), folderFiles(second)];
    for (const c of [id, second]) expect((await server.api("DELETE", `/api/conversations/${c}`)).status).toBe(200);
    const restored = await upload(bytes);
    expect(restored.status).toBe(201);
    expect(restored.json.imported.map((c: { id: string; outcome: string }) => [c.id, c.outcome])).toEqual([[id, "created"], [second, "created"]]);
    expectSameFiles(folderFiles(id), files[0]!);
    expectSameFiles(folderFiles(second), files[1]!);
    expect(await listed()).toEqual(expect.arrayContaining([id, second]));
  });

  it("exports a running conversation consistently and refuses to overwrite it while it runs", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "exp-live", project_path: project });
    const live = created.json.conversation.id as string;
    await server.api("POST", `/api/conversations/${live}/messages`, { content: "work slowly" });
    await until("the agent is running", async () => (await server.api("GET", `/api/conversations/${live}/agents`)).json.agents.some((a: { metadata: { status: string } }) => a.metadata.status === "running"));
    await until("its model call is streaming", async () => fake.requests.some((r) => r.body && !isLeader(r.body) && scenario(r.body) === "exp-live" && !r.completed));
    const res = await download(`/api/conversations/${live}/export?format=zip`);
    expect(res.status).toBe(200);
    const archive = await readImportArchive(new Uint8Array(res.body)); // every file whole and valid
    const exported = archive.conversations[0]!;
    expect(exported.agents.map((a) => a.meta.status)).toEqual(["running"]);
    expect(exported.metadata.agent_ids).toEqual([exported.agents[0]!.meta.agent_id]);
    expect(exported.leader.messages.some((m) => (m.tool_calls ?? []).some((c) => c.function.name === "create_sub_agent"))).toBe(true);
    const refused = await upload(res.body, "?mode=overwrite&confirm=true");
    expect(refused.status).toBe(409);
    expect(refused.json.error.details.running).toEqual([live]);
    expect((await server.api("POST", `/api/conversations/${live}/stop`)).status).toBe(200);
  });
});

describe("refused requests", () => {
  const escapeTarget = () => path.join(path.dirname(server.home), "escaped-by-zip.txt");

  it("refuses hostile zips with a clear error and writes nothing", async () => {
    // What an import would leave behind; index.json's own atomic rewrite (a temp file beside it,
    // from the earlier tests' background index writes) may come and go meanwhile.
    const conversations = () =>
      readdirSync(path.join(server.home, "conversations"))
        .filter((name) => !/^index\.json\.\d+\.[0-9a-f]+\.tmp$/.test(name))
        .sort();
    const before = conversations();
    const manifest = { name: "astrion-export.json", data: JSON.stringify({ format: "astrion-conversations", format_version: 1, app_version: "0", created_at: new Date().toISOString(), conversation_ids: ["conv_20260101_000000_001"] }) };
    const cases: Array<[Uint8Array, number, RegExp]> = [
      [craftZip([manifest, { name: "../escaped-by-zip.txt", data: "x" }]), 400, /'\.\.'/],
      [craftZip([manifest, { name: "conv_20260101_000000_001/../../../escaped-by-zip.txt", data: "x" }]), 400, /'\.\.'/],
      [craftZip([manifest, { name: "/tmp/escaped-by-zip.txt", data: "x" }]), 400, /absolute/],
      [craftZip([manifest, { name: "conv_20260101_000000_001\\..\\x", data: "x" }]), 400, /backslash/],
      [craftZip([manifest, { name: "conv_20260101_000000_001/metadata.json", data: "x", method: 0, external: (0o120777 << 16) >>> 0 }]), 400, /symbolic link/],
      [craftZip([manifest, { name: "conv_20260101_000000_001/messages.json", data: new Uint8Array(2_000_000), declaredSize: 10 }]), 400, /declared size/],
      [craftZip([manifest, { name: "conv_20260101_000000_001/messages.json", data: "x", declaredSize: 100 * 1024 * 1024 }]), 413, /larger than/],
      [craftZip([manifest, { name: "conv_20260101_000000_001/metadata.json", data: "{}" }, { name: "conv_20260101_000000_001/metadata.json", data: "{}" }]), 400, /duplicate/],
      [craftZip([manifest, { name: "conv_20260101_000000_001/metadata.json", data: "{bad json" }]), 400, /not valid JSON/],
      [new TextEncoder().encode("not a zip"), 400, /not a zip/],
    ];
    for (const [zip, status, message] of cases) {
      const res = await upload(zip);
      expect(res.status, String(message)).toBe(status);
      expect(res.json.error.message).toMatch(message);
    }
    expect(existsSync(escapeTarget())).toBe(false);
    expect(existsSync("/tmp/escaped-by-zip.txt")).toBe(false);
    expect(conversations()).toEqual(before);
  });

  it("refuses a zip whose conversation names a project folder a new conversation could not have, writing none of it", async () => {
    const good = "conv_20250101_000000_001";
    const bad = "conv_20250101_000000_002";
    for (const [badPath, reason] of [["/", "filesystem_root"], [server.home, "inside_data_folder"], ["/etc", "system_folder"]] as const) {
      const folders = [
        { id: good, files: fixtureFolder({ id: good, projectPath: project }) },
        { id: bad, files: fixtureFolder({ id: bad, projectPath: badPath }) },
      ];
      const zip = Buffer.from(await new Response(zipStream(exportEntries(exportManifest([good, bad], "0"), folders))).arrayBuffer());
      const res = await upload(zip);
      expect(res.status, badPath).toBe(400);
      expect(res.json.error.message).toContain(`${bad}: its project folder cannot be used here`);
      expect(res.json.error.details[0].reason).toBe(reason);
      const ids = await listed();
      expect(ids).not.toContain(good);
      expect(ids).not.toContain(bad);
      expect(existsSync(path.join(server.home, "conversations", good))).toBe(false);
    }
  });

  it("guards the import like every mutating route: content-type, Origin, size", async () => {
    const zip = craftZip([{ name: "a", data: "b" }]);
    expect((await upload(zip, "", { "content-type": "multipart/form-data; boundary=x" })).status).toBe(415);
    expect((await upload(zip, "", { "content-type": "text/plain" })).status).toBe(415);
    expect((await upload(zip, "", { origin: "https://evil.example" })).status).toBe(403);
    expect((await upload(zip, "?mode=sideways")).status).toBe(400);
    const tooLarge = await rawRequest(server.port, {
      method: "POST",
      path: "/api/conversations/import",
      // Its own connection: the server drops one whose announced body never comes.
      headers: { "content-type": "application/zip", "content-length": String(64 * 1024 * 1024 + 1), origin: `http://127.0.0.1:${server.port}`, connection: "close" },
    });
    expect(tooLarge.status).toBe(413);
  });

  it("refuses bad export requests clearly", async () => {
    expect((await server.api("GET", "/api/conversations/conv_20200101_000000_001/export?format=md")).status).toBe(404);
    expect((await server.api("GET", "/api/conversations/not-an-id/export")).status).toBe(400);
    const anyId = (await server.api("GET", "/api/conversations?status=all")).json.items[0].id;
    expect((await server.api("GET", `/api/conversations/${anyId}/export?format=pdf`)).status).toBe(400);
    const many = Array.from({ length: 51 }, (_, i) => `conv_20200101_000000_${String(i + 1).padStart(3, "0")}`);
    const tooMany = await server.api("POST", "/api/conversations/export", { ids: many });
    expect(tooMany.status).toBe(400);
    expect((await server.api("POST", "/api/conversations/export", { ids: [] })).status).toBe(400);
    expect((await server.api("POST", "/api/conversations/export", { ids: [anyId, anyId] })).status).toBe(400);
    expect((await server.api("POST", "/api/conversations/export", { ids: ["conv_20200101_000000_001"] })).status).toBe(404);
  });
});

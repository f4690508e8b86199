/**
 * The HTTP API against the real running server: documented errors for bad bodies and ids,
 * conversations and roles end to end, and the files they leave on disk.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, tempDir, type TestServer } from "./helpers/server";

let server: TestServer;
let project: string;

beforeAll(async () => {
  server = await startServer();
  project = tempDir("astrion-project-");
});

afterAll(async () => {
  await server?.stop();
});

function expectError(res: { status: number; json: any }, status: number, code: string) { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(res.status).toBe(status);
  expect(res.json?.error?.code).toBe(code);
  expect(typeof res.json.error.message).toBe("string");
  expect(res.json.error.message.length).toBeGreaterThan(0);
}

describe("first start", () => {
  it("lays out the data folder and copies the product roles", async () => {
    for (const f of ["state.json", "conversations/index.json", "models.json"]) expect(existsSync(path.join(server.home, f)), f).toBe(true);
    for (const id of ["ui-operator", "full-stack-engineer", "code-reviewer", "researcher"]) {
      expect(existsSync(path.join(server.home, "agents", `${id}.md`)), id).toBe(true);
    }
    const state = JSON.parse(readFileSync(path.join(server.home, "state.json"), "utf8"));
    expect(state).toMatchObject({ version: "1.0", agent_id_counter: 0 });
  });

  it("answers health with the data folder", async () => {
    const res = await server.api("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "ok", data_root: server.home, problems: [] });
  });

  it("lists the offline model as the default", async () => {
    const res = await server.api("GET", "/api/models");
    expect(res.json.default_key).toBe("offline");
    expect(res.json.models).toEqual(expect.arrayContaining([expect.objectContaining({ key: "offline", offline: true, configured: true })]));
    // A key's source at most ("none", "stored", "env" and its name), never a key or where a key is kept.
    expect(res.text).not.toMatch(/sk-|api_key_ref|api_key_env/);
    expect(res.json.models.every((m: { api_key: unknown }) => typeof m.api_key === "object")).toBe(true);
  });

  it("answers a browser that accepts gzip uncompressed: on localhost compression only costs CPU", async () => {
    const res = await server.api("GET", "/api/roles", undefined, { "accept-encoding": "gzip, deflate, br" });
    expect(res.status).toBe(200);
    // Large enough that Next would compress it (its threshold is 1 KB) were compression on.
    expect(Buffer.byteLength(res.text)).toBeGreaterThan(2048);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.json.roles.length).toBeGreaterThan(0);
  });
});

describe("conversations", () => {
  it("creates, reads, renames, archives, lists and deletes", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "设计前端", project_path: project, run_mode: "thinking" });
    expect(created.status).toBe(201);
    const conv = created.json.conversation;
    expect(conv.id).toMatch(/^conv_\d{8}_\d{6}_\d{3}$/);
    expect(conv).toMatchObject({ title: "设计前端", project_path: project, model_key: "offline", thinking_mode: true, run_mode: "thinking", status: "active", agent_count: 0, agent_ids: [] });

    const dir = path.join(server.home, "conversations", conv.id);
    const metaText = readFileSync(path.join(dir, "metadata.json"), "utf8");
    expect(metaText).toContain('"title": "设计前端"');
    expect(JSON.parse(readFileSync(path.join(dir, "messages.json"), "utf8"))).toMatchObject({ id: conv.id, messages: [] });
    const index = JSON.parse(readFileSync(path.join(server.home, "conversations", "index.json"), "utf8"));
    expect(index[conv.id]).toMatchObject({ title: "设计前端", agent_count: 0 });
    expect(JSON.parse(readFileSync(path.join(server.home, "state.json"), "utf8")).last_conversation_id).toBe(conv.id);

    expect((await server.api("GET", `/api/conversations/${conv.id}`)).json.conversation.id).toBe(conv.id);
    const renamed = await server.api("PATCH", `/api/conversations/${conv.id}`, { title: "Renamed" });
    expect(renamed.json.conversation.title).toBe("Renamed");
    expect(JSON.parse(readFileSync(path.join(server.home, "conversations", "index.json"), "utf8"))[conv.id].title).toBe("Renamed");

    await server.api("PATCH", `/api/conversations/${conv.id}`, { status: "archived" });
    const active = await server.api("GET", "/api/conversations?status=active");
    expect(active.json.items.map((i: { id: string }) => i.id)).not.toContain(conv.id);
    const archived = await server.api("GET", "/api/conversations?status=archived");
    expect(archived.json.items.map((i: { id: string }) => i.id)).toContain(conv.id);

    expect((await server.api("DELETE", `/api/conversations/${conv.id}`)).json).toEqual({ deleted: conv.id });
    expect(existsSync(dir)).toBe(false);
    expect(JSON.parse(readFileSync(path.join(server.home, "conversations", "index.json"), "utf8"))[conv.id]).toBeUndefined();
    expectError(await server.api("GET", `/api/conversations/${conv.id}`), 404, "not_found");
  });

  it("starts the team in the same request when a goal comes with the new conversation", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "With a goal", project_path: project, goal: "  List the files of this folder  " });
    expect(created.status).toBe(201);
    const { conversation, started } = created.json;
    expect(started).toEqual({ message_id: expect.any(String), trace_id: expect.any(String) });
    expect(conversation.phase).not.toBe("IDLE");
    const leader = (await server.api("GET", `/api/conversations/${conversation.id}/messages`)).json;
    const person = leader.messages.filter((m: { metadata?: { message_source?: string } }) => m.metadata?.message_source === "user");
    expect(person).toEqual([expect.objectContaining({ role: "user", content: "List the files of this folder", message_id: started.message_id, metadata: expect.objectContaining({ starts_work: true, trace_id: started.trace_id }) })]);

    // A blank goal is no goal: an empty conversation, as without one.
    const empty = await server.api("POST", "/api/conversations", { title: "Blank goal", project_path: project, goal: "   " });
    expect(empty.status).toBe(201);
    expect(empty.json.started).toBeUndefined();
    expect(empty.json.conversation.phase).toBe("IDLE");
    expect((await server.api("GET", `/api/conversations/${empty.json.conversation.id}/messages`)).json.messages.filter((m: { role: string }) => m.role === "user")).toEqual([]);
  });

  it("pages newest first and searches titles and project folders", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await server.api("POST", "/api/conversations", { title: `Paging ${i} ${i % 2 ? "odd" : "even"}`, project_path: project });
      ids.push(res.json.conversation.id);
    }
    const page1 = await server.api("GET", "/api/conversations?q=paging&limit=3");
    expect(page1.json.total).toBe(7);
    expect(page1.json.items.map((i: { title: string }) => i.title)).toEqual(["Paging 6 even", "Paging 5 odd", "Paging 4 even"]);
    const page3 = await server.api("GET", "/api/conversations?q=paging&limit=3&offset=6");
    expect(page3.json.items.map((i: { title: string }) => i.title)).toEqual(["Paging 0 even"]);
    const odd = await server.api("GET", "/api/conversations?q=ODD");
    expect(odd.json.total).toBe(3);

    const folder = path.join(project, "Search-Me-Repo");
    mkdirSync(folder);
    const inFolder = (await server.api("POST", "/api/conversations", { title: "Elsewhere", project_path: folder })).json.conversation;
    const byFolder = await server.api("GET", "/api/conversations?q=search-me-REPO");
    expect(byFolder.json.items.map((i: { id: string }) => i.id)).toEqual([inFolder.id]);
    expect(byFolder.json.items[0].project_path).toBe(folder);
  });

  it("rejects bad bodies with 400 and field details", async () => {
    const cases: Array<[unknown, string]> = [
      [{ title: "x" }, "project_path"],
      [{ project_path: "relative/path" }, "project_path"],
      [{ project_path: path.join(project, "does-not-exist") }, "project_path"],
      [{ project_path: project, run_mode: "turbo" }, "run_mode"],
      [{ project_path: project, model_key: "no-such-model" }, "model_key"],
      [{ project_path: project, title: "x".repeat(201) }, "title"],
      [[1, 2], ""],
    ];
    for (const [body, field] of cases) {
      const res = await server.api("POST", "/api/conversations", body);
      expectError(res, 400, "validation_failed");
      if (field) expect(JSON.stringify(res.json.error.details), JSON.stringify(body)).toContain(field);
    }
    const notJson = await server.request({ method: "POST", path: "/api/conversations", headers: { "content-type": "application/json" }, body: "{nope" });
    expectError(notJson, 400, "bad_request");
    expectError(await server.api("PATCH", "/api/conversations/conv_20260101_000000_001", {}), 400, "validation_failed");
    expectError(await server.api("GET", "/api/conversations?limit=0"), 400, "validation_failed");
    expectError(await server.api("GET", "/api/conversations?status=deleted"), 400, "validation_failed");
  });

  it("rejects bad ids with 400 and unknown ones with 404", async () => {
    // A `..` segment, plain or encoded, is normalized by the router itself: a 308 to the parent
    // path, never a handler call with `..` as the id.
    for (const bad of ["..", "%2e%2e", "%2E%2E"]) {
      const res = await server.api("GET", `/api/conversations/${bad}`);
      expect(res.status, bad).toBe(308);
      expect(res.headers.location, bad).toMatch(/^\/api\/?$/);
    }
    for (const bad of ["%2E%2E%2Fstate.json", "conv_..%2F..", "conv_20260101_000000_001%00", "a%2Fb", "conv_2026"]) {
      const res = await server.api("GET", `/api/conversations/${bad}`);
      expect([400, 404], bad).toContain(res.status);
      expect(res.json?.error, bad).toBeDefined();
      if (res.status === 404) expect(res.json.error.code).toBe("not_found");
    }
    for (const bad of ["conv_20260101_000000_001%00", "conv_2026", "...", "%2E%2E%2Fstate.json"]) {
      expectError(await server.api("GET", `/api/conversations/${bad}`), 400, "validation_failed");
      expectError(await server.api("DELETE", `/api/conversations/${bad}`), 400, "validation_failed");
    }
    expectError(await server.api("GET", "/api/conversations/conv_20200101_000000_001"), 404, "not_found");
    expectError(await server.api("GET", "/api/no-such-route"), 404, "not_found");
  });

  it("answers 413 for a body over the limit", async () => {
    const res = await server.api("POST", "/api/conversations", { title: "x", project_path: project, pad: "y".repeat(1_100_000) });
    expectError(res, 413, "payload_too_large");
  });
});

describe("roles", () => {
  const fields = { id: "api-tester", name: "API Tester", description: "Tests APIs", capabilities: ["testing", "http"], permissions: ["read"] };

  it("creates, reads, saves only what changed, and deletes", async () => {
    const created = await server.api("POST", "/api/roles", { fields, body: "You test APIs.\n" });
    expect(created.status).toBe(201);
    const file = path.join(server.home, "agents", "api-tester.md");
    expect(readFileSync(file, "utf8")).toMatch(/^---\nid: api-tester\nname: API Tester\n/);
    expectError(await server.api("POST", "/api/roles", { fields, body: "" }), 409, "conflict");

    const got = await server.api("GET", "/api/roles/api-tester");
    expect(got.json.role).toMatchObject({ kind: "role", id: "api-tester", fields: { name: "API Tester" } });
    const { id: _id, ...rest } = got.json.role.fields; // eslint-disable-line @typescript-eslint/no-unused-vars
    const before = readFileSync(file, "utf8");
    const same = await server.api("PUT", "/api/roles/api-tester", { etag: got.json.role.etag, fields: rest, body: got.json.role.body });
    expect(same.status).toBe(200);
    expect(readFileSync(file, "utf8")).toBe(before);

    const changed = await server.api("PUT", "/api/roles/api-tester", { etag: got.json.role.etag, fields: { ...rest, name: "API Checker" }, body: got.json.role.body });
    expect(changed.json.role.fields.name).toBe("API Checker");
    expect(readFileSync(file, "utf8")).toBe(before.replace("name: API Tester", "name: API Checker"));

    const stale = await server.api("PUT", "/api/roles/api-tester", { etag: got.json.role.etag, fields: rest, body: "x" });
    expectError(stale, 409, "conflict");

    expect((await server.api("DELETE", "/api/roles/api-tester")).status).toBe(200);
    expect(existsSync(file)).toBe(false);
    expectError(await server.api("GET", "/api/roles/api-tester"), 404, "not_found");
  });

  it("rejects bad role bodies field by field", async () => {
    const res = await server.api("POST", "/api/roles", { fields: { ...fields, id: "bad id", name: "" }, body: "" });
    expectError(res, 400, "validation_failed");
    const paths = res.json.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(["fields.id", "fields.name"]));
    expectError(await server.api("POST", "/api/roles", { fields: { ...fields, max_concurrency: 0 }, body: "" }), 400, "validation_failed");
    expectError(await server.api("POST", "/api/roles", { fields: { ...fields, permissions: ["root"] }, body: "" }), 400, "validation_failed");
  });

  it("rejects ids that could leave the roles folder", async () => {
    for (const bad of ["..%2Fstate", "a%2Fb", "x%00", "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "...", ".hidden"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await server.api(method, `/api/roles/${bad}`, method === "PUT" ? { raw: "---\nname: a\ndescription: b\n---\n" } : undefined);
        expect(res.status, `${method} ${bad}`).toBe(400);
        expect(res.json.error.code, `${method} ${bad}`).toBe("validation_failed");
      }
    }
    for (const bad of ["..", "%2e%2e"]) {
      expect((await server.api("DELETE", `/api/roles/${bad}`)).status, bad).toBe(308);
    }
    expect(existsSync(path.join(server.home, "state.json"))).toBe(true);
  });

  it("imports a Claude Code role byte for byte and keeps its unknown keys", async () => {
    const content = "---\nname: my-helper\ndescription: Helps. Use PROACTIVELY.\ntools: Read, Grep, Glob\nmodel: sonnet\ncolor: cyan\n---\n\nYou help.\n";
    const res = await server.api("POST", "/api/roles/import", { content, file_name: "my-helper.md" });
    expect(res.status).toBe(201);
    expect(res.json.role).toMatchObject({ id: "my-helper", fields: { tools: ["Read", "Grep", "Glob"], model: "sonnet" }, extra: { color: "cyan" } });
    expect(readFileSync(path.join(server.home, "agents", "my-helper.md"), "utf8")).toBe(content);
    expectError(await server.api("POST", "/api/roles/import", { content, file_name: "my-helper.md" }), 409, "conflict");
    expect((await server.api("POST", "/api/roles/import", { content, file_name: "my-helper.md", overwrite: true })).status).toBe(201);
    expectError(await server.api("POST", "/api/roles/import", { content: "no frontmatter at all" }), 400, "validation_failed");
  });

  it("lists a broken file as an error entry, never rewrites it, and lets a raw save fix it", async () => {
    const broken = path.join(server.home, "agents", "broken.md");
    const text = "---\nname: [unclosed\ndescription: x\n---\nbody\n";
    writeFileSync(broken, text);
    const list = await server.api("GET", "/api/roles");
    const entry = list.json.roles.find((r: { id: string }) => r.id === "broken");
    expect(entry).toMatchObject({ kind: "error", file: "broken.md" });
    expect(entry.message.length).toBeGreaterThan(0);
    expect(list.json.roles.filter((r: { kind: string }) => r.kind === "role").length).toBeGreaterThanOrEqual(4);
    const got = await server.api("GET", "/api/roles/broken");
    expect(got.json.role).toMatchObject({ kind: "error", raw: text });
    expect(readFileSync(broken, "utf8")).toBe(text);

    const stillBad = await server.api("PUT", "/api/roles/broken", { etag: got.json.role.etag, raw: "---\nname: [still\n---\n" });
    expectError(stillBad, 400, "validation_failed");
    expect(readFileSync(broken, "utf8")).toBe(text);

    const fixed = "---\nname: Broken no more\ndescription: fixed\n---\nbody\n";
    const ok = await server.api("PUT", "/api/roles/broken", { etag: got.json.role.etag, raw: fixed });
    expect(ok.status).toBe(200);
    expect(ok.json.role).toMatchObject({ kind: "role", id: "broken", fields: { name: "Broken no more" } });
    expect(readFileSync(broken, "utf8")).toBe(fixed);
  });
});

describe("the conversation index across a restart", () => {
  it("rebuilds a broken index.json at start-up, reports it in health, and lists what metadata.json says", async () => {
    const home = tempDir("astrion-home-");
    const folder = tempDir("astrion-project-");
    let first: TestServer | undefined = await startServer({ home });
    let second: TestServer | undefined;
    try {
      const made: Array<{ id: string }> = [];
      for (const title of ["One", "Two", "Three"]) {
        made.push((await first.api("POST", "/api/conversations", { title, project_path: folder })).json.conversation);
      }
      await first.stop();
      first = undefined;
      // While the server is down: index.json breaks, and a title is edited by hand.
      const conversations = path.join(home, "conversations");
      writeFileSync(path.join(conversations, "index.json"), '{"conv_": ');
      const metaFile = path.join(conversations, made[1]!.id, "metadata.json");
      writeFileSync(metaFile, JSON.stringify({ ...JSON.parse(readFileSync(metaFile, "utf8")), title: "Two, edited by hand" }, null, 2));

      second = await startServer({ home });
      const aside = readdirSync(conversations).filter((n) => n.startsWith("index.json.corrupt-"));
      expect(aside).toHaveLength(1);
      expect(readFileSync(path.join(conversations, aside[0]!), "utf8")).toBe('{"conv_": ');
      const health = (await second.api("GET", "/api/health")).json;
      expect(health.problems).toEqual([
        { file: `conversations/${aside[0]}`, message: expect.stringContaining("rebuilt at start-up from 3 metadata.json file(s)") },
      ]);
      // The rebuild is also in the index report, beside the load and the rewrite that repaired it.
      expect(health.index).toMatchObject({
        conversations: 3,
        unreadable: 0,
        loaded_at: expect.any(String),
        rebuilds: [{ reason: "corrupt", moved_to: `conversations/${aside[0]}`, message: health.problems[0].message }],
        last_write: { bytes: statSync(path.join(conversations, "index.json")).size },
      });
      expect(health.index.writes).toBeGreaterThanOrEqual(1);
      const list = (await second.api("GET", "/api/conversations")).json;
      expect(list.items.map((i: { title: string }) => i.title).sort()).toEqual(["One", "Three", "Two, edited by hand"]);
      expect((await second.api("GET", "/api/conversations?q=EDITED")).json.items.map((i: { id: string }) => i.id)).toEqual([made[1]!.id]);
      const index = JSON.parse(readFileSync(path.join(conversations, "index.json"), "utf8"));
      expect(Object.keys(index)).toEqual(made.map((c) => c.id));
      expect(index[made[1]!.id]).toMatchObject({ title: "Two, edited by hand", agent_count: 0 });
    } finally {
      await first?.stop();
      await second?.stop();
    }
  });
});

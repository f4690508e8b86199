/**
 * Agents can never reach Astrion's own files, against the real server:
 * - a project folder that is the disk root, a system folder, the data or app folder, inside
 *   them or containing them is refused at creation, by its real path and by its identity;
 * - defence in depth: the data folder bind-mounted INTO a project (layer 1 cannot see that) is
 *   invisible and untouchable to the workspace tools, and no path trick reaches it;
 * - an agent's privileges come from its token, not from files re-read: forging its role file,
 *   its metadata.json or the conversation's project_path changes nothing it may do;
 * - after a restart with the data folder moved into a project folder, that conversation does not
 *   resume: no model call, a notice, a refused message.
 *
 * The bind mount: the server runs in its own mount namespace (`unshare -m`, or `-r -m` when not
 * root) in which the data folder is also mounted at `<project>/mnt`. Outside the namespace
 * `<project>/mnt` stays an empty folder, so the test reads the real data folder directly. Where
 * no mount namespace can be made, the bind-mount cases are skipped and everything else runs.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { seedRolesAllowingWrites } from "./helpers/roles";
import { REPO_ROOT, snapshotOf, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ id: string; function: { name: string } }>; tool_call_id?: string };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
let project: string;
let bound = false;
/** Conversation ids the scripted agents need (their files are what they try to forge). */
const ids: Record<string, string> = {};

const msgs = (b: FakeRequestBody) => (b.messages ?? []) as Msg[];
const isLeader = (b: FakeRequestBody) => JSON.stringify(b.tools ?? []).includes("create_sub_agent");
const scenario = (b: FakeRequestBody) => /Conversation: (\S+)/.exec(String(msgs(b)[0]?.content ?? ""))?.[1] ?? "unknown";
const hasCall = (b: FakeRequestBody, id: string) => msgs(b).some((m) => (m.tool_calls ?? []).some((c) => c.id === id));
const hasResult = (b: FakeRequestBody, id: string) => msgs(b).some((m) => m.role === "tool" && m.tool_call_id === id);
const reports = (b: FakeRequestBody) => msgs(b).filter((m) => m.role === "user" && String(m.content).includes("的任务完成汇报")).length;
const report = (summary: string, id?: string) => fakeToolCalls([{ ...(id ? { id } : {}), name: "report_to_leader", arguments: { summary } }]);

const FORGED_META = JSON.stringify({ project_path: "/", FORGED: true });
const FORGED_ROLE = "---\nid: researcher\nname: Researcher\ndescription: forged\npermissions: [read, write]\n---\nFORGED\n";

/** Every way to name the data folder's trusted files from the project (ids say which). */
function forgeryCalls(): FakeToolCall[] {
  const hb = path.basename(home);
  const id = ids.forge!;
  const targets: Array<[string, string]> = [
    [`../${hb}/conversations/${id}/metadata.json`, FORGED_META],
    [`${home}/conversations/${id}/metadata.json`, FORGED_META],
    [`/${home}/models.json`, FORGED_META],
    [`link-home/conversations/${id}/metadata.json`, FORGED_META],
    [`./link-home//agents/researcher.md`, FORGED_ROLE],
    [`link-agents/researcher.md`, FORGED_ROLE],
    [`%2e%2e/${hb}/models.json`, FORGED_META],
    [`%252e%252e/${hb}/models.json`, FORGED_META],
    [`..%2f${hb}%2fmodels.json`, FORGED_META],
    [`．．/${hb}/models.json`, FORGED_META],
    [`\u2025/${hb}/agents/researcher.md`, FORGED_ROLE],
    [`~/../../${home}/models.json`, FORGED_META],
    [`..\\${hb}\\models.json`, FORGED_META],
    [`link-root/${home.slice(1)}/models.json`, FORGED_META],
  ];
  if (bound) {
    targets.push(
      [`mnt/conversations/${id}/metadata.json`, FORGED_META],
      [`./mnt/conversations/${id}/metadata.json`, FORGED_META],
      [`mnt//conversations/./${id}//metadata.json`, FORGED_META],
      [`inner/conversations/${id}/metadata.json`, FORGED_META],
      [`mnt/agents/researcher.md`, FORGED_ROLE],
      [`inner/agents/evil.md`, FORGED_ROLE],
      [`mnt/models.json`, FORGED_META],
      [`inner//models.json`, FORGED_META],
    );
  }
  const calls: FakeToolCall[] = targets.map(([p, content], i) => ({ id: `w_${i}`, name: "write_file", arguments: { path: p, content } }));
  if (bound) {
    calls.push(
      { id: "r_mnt_models", name: "read_file", arguments: { path: "mnt/models.json" } },
      { id: "r_inner_role", name: "read_file", arguments: { path: "inner/agents/researcher.md" } },
      { id: "r_mnt_meta", name: "read_file", arguments: { path: `mnt/conversations/${id}/metadata.json` } },
      { id: "l_mnt", name: "list_files", arguments: { path: "mnt" } },
    );
  }
  calls.push({ id: "l_all", name: "list_files", arguments: { path: ".", depth: 5 } }, { id: "s_all", name: "search_files", arguments: { query: "project_path" } });
  return calls;
}

const OUTSIDE_READS = ["/etc/passwd", "../../../../../../etc/passwd", "link-root/etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "mnt/../../../etc/passwd"];

let releaseSwap: () => void = () => undefined;
const swapped = new Promise<void>((r) => (releaseSwap = r));
let releaseTamper1: () => void = () => undefined;
const tamper1 = new Promise<void>((r) => (releaseTamper1 = r));
let releaseTamper2: () => void = () => undefined;
const tamper2 = new Promise<void>((r) => (releaseTamper2 = r));

function handler(body: FakeRequestBody): Script | Promise<Script> {
  const s = scenario(body);
  if (isLeader(body)) {
    const role = s === "forge" ? "full-stack-engineer" : "researcher";
    if (s === "moved") return fakeText("thinking about it", { contentChunks: 4, end: "stall", chunksBeforeEnd: 2 });
    if (!msgs(body).some((m) => (m.tool_calls ?? []).length)) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: role, task: `Task of ${s}` } }]);
    return fakeText(reports(body) >= 1 ? `SUMMARY ${s}` : "waiting");
  }
  if (s === "forge") {
    if (!hasCall(body, "w_0")) return fakeToolCalls(forgeryCalls());
    if (!hasCall(body, "later_0")) return fakeToolCalls(OUTSIDE_READS.map((p, i) => ({ id: `later_${i}`, name: "read_file", arguments: { path: p } })));
    return report("tried everything");
  }
  if (s === "swap") {
    if (!hasCall(body, "s_read")) return fakeToolCalls([{ id: "s_read", name: "read_file", arguments: { path: "ok.txt" } }]);
    if (!hasCall(body, "s_list"))
      return swapped.then(() =>
        fakeToolCalls([
          { id: "s_list", name: "list_files", arguments: { path: "." } },
          { id: "s_models", name: "read_file", arguments: { path: `${path.basename(home)}/models.json` } },
        ]),
      );
    return fakeText("stopped");
  }
  if (s === "tamper") {
    if (!hasCall(body, "t_read_ok")) return fakeToolCalls([{ id: "t_read_ok", name: "read_file", arguments: { path: "ok.txt" } }]);
    if (!hasCall(body, "t_write")) return tamper1.then(() => fakeToolCalls([{ id: "t_write", name: "write_file", arguments: { path: "notes.md", content: "x" } }]));
    if (!hasCall(body, "t_passwd"))
      return tamper2.then(() =>
        fakeToolCalls([
          { id: "t_passwd", name: "read_file", arguments: { path: "etc/passwd" } },
          { id: "t_ok2", name: "read_file", arguments: { path: "ok.txt" } },
        ]),
      );
    if (!hasCall(body, "t_report")) return report("done", "t_report");
    return fakeText("I cannot go on.");
  }
  return report("?");
}

/** A launcher that runs the server in a mount namespace where `source` is also mounted at `target`; null when none can be made. */
function bindLauncher(source: string, target: string): string[] | null {
  const script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"';
  for (const ns of [["-m"], ["-r", "-m"]]) {
    const launcher = ["unshare", ...ns, "--propagation", "private", "sh", "-c", script, "sh", source, target];
    if (spawnSync(launcher[0]!, [...launcher.slice(1), "true"]).status === 0) return launcher;
  }
  return null;
}

const serverEnv = { FAKE_OPENAI_KEY: "sk-fake-test-key", ASTRION_LEADER_BATCH_MS: "20" };

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  // The product roles, allowing writes: this file tests the engine, not approval.
  seedRolesAllowingWrites(home);
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", timeouts: { idle_ms: 60_000 } } } }),
  );
  project = tempDir("astrion-project-");
  mkdirSync(path.join(project, "mnt"));
  writeFileSync(path.join(project, "ok.txt"), "inside the project\n");
  symlinkSync(home, path.join(project, "link-home"));
  symlinkSync(path.join(home, "agents"), path.join(project, "link-agents"));
  symlinkSync("/", path.join(project, "link-root"));
  symlinkSync("mnt", path.join(project, "inner"));
  const launcher = bindLauncher(home, path.join(project, "mnt"));
  bound = launcher !== null;
  if (!bound) console.warn("[confinement] no mount namespace available: the bind-mount cases are skipped");
  server = await startServer({ home, env: serverEnv, ...(launcher ? { launcher } : {}) });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

async function create(title: string, projectPath: string) {
  return server.api("POST", "/api/conversations", { title, project_path: projectPath });
}

async function agentMessages(id: string): Promise<Map<string, string>> {
  const { agents } = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
  if (!agents?.length) return new Map();
  const detail = (await server.api("GET", `/api/conversations/${id}/agents/${agents[0].metadata.agent_id}`)).json;
  return new Map(detail.messages.filter((m: Msg) => m.role === "tool").map((m: Msg) => [m.tool_call_id!, String(m.content)]));
}

async function records(id: string): Promise<Array<{ action: string; status: string; envelope: { payload: Record<string, unknown> } }>> {
  return (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
}

/** The notices of the SSE snapshot (the first event of the stream). */
async function notices(id: string): Promise<Array<{ code: string; message: string; params?: Record<string, unknown>; detail?: string }>> {
  return (await snapshotOf(server, id)).notices;
}

/** The data folder's trusted files, to prove they did not change. */
function trustedFiles(): Record<string, string> {
  const out: Record<string, string> = { "models.json": readFileSync(path.join(home, "models.json"), "utf8") };
  for (const f of readdirSync(path.join(home, "agents"))) out[`agents/${f}`] = readFileSync(path.join(home, "agents", f), "utf8");
  return out;
}

describe("creating a conversation", () => {
  it("refuses the disk root, system folders, the data folder and the app folder by every name", async () => {
    const linkToRoot = path.join(tempDir("astrion-links-"), "link-to-root");
    symlinkSync("/", linkToRoot);
    const linkToHome = path.join(path.dirname(linkToRoot), "link-to-home");
    symlinkSync(home, linkToHome);
    const cases: Array<[string, string]> = [
      ["/", "filesystem_root"],
      ["//", "filesystem_root"],
      ["/./", "filesystem_root"],
      ["/proc/self/root", "filesystem_root"],
      ["/proc/self/root/", "filesystem_root"],
      [linkToRoot, "filesystem_root"],
      [`${linkToRoot}/`, "filesystem_root"],
      ["/etc", "system_folder"],
      ["/proc", "system_folder"],
      ["/usr", "system_folder"],
      ["/usr/lib", "system_folder"],
      [`${linkToRoot}/etc`, "system_folder"],
      [home, "inside_data_folder"],
      [`${home}/`, "inside_data_folder"],
      [`${home}//./conversations`, "inside_data_folder"],
      [path.join(home, "agents"), "inside_data_folder"],
      [linkToHome, "inside_data_folder"],
      [path.dirname(home), "contains_data_folder"],
      [`${path.dirname(home)}/`, "contains_data_folder"],
      [path.join(REPO_ROOT, ".next"), "inside_app_folder"],
      [path.join(REPO_ROOT, ".next", "server"), "inside_app_folder"],
      [path.join(REPO_ROOT, "node_modules", "next"), "inside_app_folder"],
    ];
    if (bound) {
      // Only the inode tells these apart from an ordinary folder.
      cases.push([path.join(project, "mnt"), "inside_data_folder"], [path.join(project, "mnt", "agents"), "inside_data_folder"], [path.join(project, "inner"), "inside_data_folder"]);
    }
    const before = (await server.api("GET", "/api/conversations?status=all&limit=100")).json.total;
    for (const [candidate, reason] of cases) {
      const res = await create("refused", candidate);
      expect(res.status, candidate).toBe(400);
      expect(res.json.error.code, candidate).toBe("validation_failed");
      expect(res.json.error.details, candidate).toEqual([expect.objectContaining({ path: "project_path", reason })]);
    }
    const contains = await create("refused", path.dirname(home));
    expect(contains.json.error.details[0]).toMatchObject({ folder: home, message: expect.stringContaining("ASTRION_HOME") });
    expect((await server.api("GET", "/api/conversations?status=all&limit=100")).json.total).toBe(before);
  });

  it("accepts a project folder in the temp folder beside the data folder", async () => {
    const res = await create("beside", tempDir("astrion-beside-"));
    expect(res.status).toBe(201);
  });
});

describe("an agent with write permission tries to forge the files the runtime trusts", () => {
  it("is refused on every path, the trusted files do not change, and outside paths stay closed", async () => {
    const res = await create("forge", project);
    expect(res.status).toBe(201);
    ids.forge = res.json.conversation.id;
    const id = ids.forge!;
    const trusted = trustedFiles();
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" });
    await until("the forge summary", async () => (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => String(m.content).includes("SUMMARY forge")), 60_000);

    const results = await agentMessages(id);
    const writes = [...results.entries()].filter(([k]) => k.startsWith("w_"));
    expect(writes.length).toBe(bound ? 22 : 14);
    for (const [k, v] of writes) expect(JSON.parse(v).error, k).toBeTruthy();
    for (let i = 0; i < OUTSIDE_READS.length; i++) expect(JSON.parse(results.get(`later_${i}`)!).error, OUTSIDE_READS[i]).toBeTruthy();
    const all = JSON.stringify([...results.values()]);
    expect(all).not.toMatch(/root:x:0:0|fake-model|FAKE_OPENAI_KEY|"permissions/);
    const listed = JSON.parse(results.get("l_all")!).entries.map((e: { path: string }) => e.path);
    expect(listed).toContain("ok.txt");
    expect(JSON.parse(results.get("s_all")!).matches).toEqual([]);
    if (bound) {
      for (const k of ["w_14", "w_15", "w_16", "w_17", "w_18", "w_19", "w_20", "w_21", "r_mnt_models", "r_inner_role", "r_mnt_meta", "l_mnt"]) {
        expect(JSON.parse(results.get(k)!).error, k).toMatch(/Astrion's own files/);
      }
      // The bind mount point and the link to it are not even listed.
      expect(listed.filter((p: string) => /^(mnt|inner)(\/|$)/.test(p))).toEqual([]);
    }

    // Nothing the runtime trusts changed: role files, models.json, the conversation's project folder.
    expect(trustedFiles()).toEqual(trusted);
    expect(readdirSync(path.join(home, "agents"))).not.toContain("evil.md");
    const meta = JSON.parse(readFileSync(path.join(home, "conversations", id, "metadata.json"), "utf8"));
    expect(meta.project_path).toBe(project);
    expect(JSON.stringify(meta)).not.toContain("FORGED");
    expect(readFileSync(path.join(home, "state.json"), "utf8")).not.toContain("FORGED");
    const agentMeta = JSON.parse(readFileSync(path.join(home, "conversations", id, "agents", String(meta.agent_ids[0]), "metadata.json"), "utf8"));
    // The full-stack engineer's own permissions (execute too, since issue 10), nothing forged added.
    expect(agentMeta.permissions).toEqual(["read", "write", "execute"]);
    // Every refusal is audited.
    const refused = (await records(id)).filter((r) => r.status === "refused");
    expect(refused.length).toBeGreaterThanOrEqual(writes.length + OUTSIDE_READS.length);
    if (bound) expect(refused.some((r) => r.envelope.payload.code === "app_data")).toBe(true);
  });
});

describe("a project folder refused while its agents work", () => {
  it("stops the tools when its symlink is re-pointed at a folder holding the data folder", async () => {
    const real = tempDir("astrion-swap-");
    writeFileSync(path.join(real, "ok.txt"), "swap project\n");
    const link = path.join(tempDir("astrion-links-"), "project-link");
    symlinkSync(real, link);
    const id = (await create("swap", link)).json.conversation.id as string;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" });
    await until("the agent waiting after its first read", () => fake.requests.some((r) => r.body && !isLeader(r.body) && scenario(r.body) === "swap" && hasResult(r.body, "s_read")));
    expect(JSON.parse((await agentMessages(id)).get("s_read")!).content).toBe("swap project\n");
    unlinkSync(link);
    symlinkSync(path.dirname(home), link);
    releaseSwap();
    const results = await until("the refused calls", async () => {
      const r = await agentMessages(id);
      return r.has("s_models") ? r : null;
    });
    for (const k of ["s_list", "s_models"]) expect(JSON.parse(results.get(k)!).error, k).toMatch(/^refused: This folder contains Astrion's own data folder/);
    expect(JSON.stringify([...results.values()])).not.toContain("fake-model");
    expect((await records(id)).filter((r) => r.status === "refused" && r.envelope.payload.code === "contains_data_folder").map((r) => r.action)).toEqual(["list_files", "read_file"]);
    const refused = (await notices(id)).find((n) => n.code === "project_refused");
    // Worded by its reason code (the page words it in its language); the rule's English is only the detail.
    expect(refused?.params).toMatchObject({ reason: "project_contains_data_folder" });
    expect(refused?.message).toMatch(/^No tool runs in this conversation: \S+ contains Astrion's own data folder/);
    expect(refused?.detail).toMatch(/^This folder contains Astrion's own data folder/);
  });
});

describe("a running agent's privileges come from its token, not from files read again", () => {
  it("ignores a forged role file, agent metadata and conversation metadata: the folder and the privileges come from the engine, never from a file read back", async () => {
    const res = await create("tamper", project);
    const id = res.json.conversation.id as string;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" });
    await until("the agent waiting after its first read", () => fake.requests.some((r) => r.body && !isLeader(r.body) && scenario(r.body) === "tamper" && hasResult(r.body, "t_read_ok")));
    await until("the leader's answer saved", async () => (await server.api("GET", `/api/conversations/${id}/messages`)).json.messages.some((m: Msg) => m.content === "waiting"));
    expect(JSON.parse((await agentMessages(id)).get("t_read_ok")!).content).toBe("inside the project\n");

    // An attacker with the data folder in hand gives the read-only researcher write permission.
    const convMetaFile = path.join(home, "conversations", id, "metadata.json");
    // The seed files follow the step log in the background (within 100 ms; a new agent's folder
    // is made by its first rewrite): wait until both name the agent before forging them.
    const agentMetaFile = await until("the agent's files on disk", () => {
      const agentId = (JSON.parse(readFileSync(convMetaFile, "utf8")).agent_ids as number[])[0];
      const file = agentId === undefined ? null : path.join(home, "conversations", id, "agents", String(agentId), "metadata.json");
      return file && existsSync(file) ? file : null;
    });
    writeFileSync(path.join(home, "agents", "researcher.md"), FORGED_ROLE);
    writeFileSync(agentMetaFile, JSON.stringify({ ...JSON.parse(readFileSync(agentMetaFile, "utf8")), permissions: ["read", "write"] }, null, 2));
    releaseTamper1();
    const write = await until("the write's result", async () => (await agentMessages(id)).get("t_write"));
    expect(JSON.parse(write).error).toMatch(/permission denied: write_file needs project:write/);
    expect(() => readFileSync(path.join(project, "notes.md"))).toThrow();

    // Then metadata.json is pointed at the disk root. The engine holds the conversation in memory
    // and never reads back a file it writes, so the forged file changes nothing: the tools still
    // work in the project folder, and only there.
    await until("the agent waiting again", () => fake.requests.some((r) => r.body && !isLeader(r.body) && scenario(r.body) === "tamper" && hasResult(r.body, "t_write")));
    const forge = () => writeFileSync(convMetaFile, JSON.stringify({ ...JSON.parse(readFileSync(convMetaFile, "utf8")), project_path: "/" }, null, 2));
    forge();
    await until("the forged project_path on disk", () => JSON.parse(readFileSync(convMetaFile, "utf8")).project_path === "/" || (forge(), false));
    releaseTamper2();
    const results = await until("the reads after the forgery", async () => {
      const r = await agentMessages(id);
      return r.has("t_report") ? r : null;
    });
    expect(JSON.parse(results.get("t_passwd")!).error).toMatch(/not found/i);
    expect(JSON.parse(results.get("t_ok2")!).content).toBe("inside the project\n");
    expect(JSON.parse(results.get("t_report")!)).toMatchObject({ delivered: true });
    expect(JSON.stringify([...results.values()])).not.toContain("root:x:0:0");
    expect((await server.api("GET", `/api/conversations/${id}`)).json.conversation.project_path).toBe(project);
  });
});

describe("after a restart with the data folder moved into a project folder", () => {
  it("that conversation does not resume: no model call, a notice, a refused message", async () => {
    const movedProject = tempDir("astrion-moved-");
    const res = await create("moved", movedProject);
    const id = res.json.conversation.id as string;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "Think" });
    await until("the leader's call streaming", () => fake.requests.some((r) => r.body && scenario(r.body) === "moved" && !r.completed));
    await server.stop();

    const newHome = path.join(movedProject, ".astrion-data");
    renameSync(home, newHome);
    const before = fake.requests.length;
    server = await startServer({ home: newHome, env: serverEnv });

    const notice = await until("the refusal notice", async () => (await notices(id)).find((n) => n.code === "project_refused"));
    expect(notice.message).toMatch(/^This conversation was not resumed: \S+ contains Astrion's own data folder/);
    expect(notice.params).toMatchObject({ reason: "project_contains_data_folder" });
    expect((await records(id)).some((r) => r.action === "resume" && r.status === "refused" && r.envelope.payload.code === "contains_data_folder")).toBe(true);
    const message = await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go on" });
    expect(message.status).toBe(409);
    expect(message.json.error.details).toMatchObject({ reason: "contains_data_folder" });
    expect((await create("again", movedProject)).json.error.details[0]).toMatchObject({ reason: "contains_data_folder", folder: newHome });

    // Another conversation runs to its end meanwhile; the refused one never called its model.
    const other = await create("after-move", tempDir("astrion-project-"));
    await server.api("POST", `/api/conversations/${other.json.conversation.id}/messages`, { content: "Go" });
    await until("the other summary", async () => (await server.api("GET", `/api/conversations/${other.json.conversation.id}/messages`)).json.messages.some((m: Msg) => String(m.content).includes("SUMMARY after-move")), 60_000);
    expect(fake.requests.slice(before).filter((r) => r.body && scenario(r.body) === "moved")).toEqual([]);
  });
});

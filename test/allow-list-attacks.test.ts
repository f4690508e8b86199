/**
 * The allow-list attacks of the third security round, through the real built server with the fake
 * model making the calls. A role as the README's example has it (`write_file: allow`, `npm test`
 * and `git status*` allow-listed):
 * - the agent rewrites `package.json` so that `npm test` runs its own command, then calls
 *   `npm test`: the call waits for a person (the card says why), nothing runs until approved;
 *   before any agent change the same allow-listed `npm test` runs without asking, and after the
 *   person's approval it does again until the next change;
 * - in a project with no `.git`, the agent writes `config` (an fsmonitor command), `objects/`
 *   and `refs/` at the top; its `HEAD` is refused like `.git/` is, and even with a `HEAD` planted
 *   by other means, the allow-listed `git status` runs hardened and never runs the fsmonitor;
 * - an entry marked `trust_agent_code` runs after agent changes without asking.
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { firstAgent, waitApproval as waitApprovalOf, waitResult } from "./helpers/agent-calls";

type Msg = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };

/** The README's example role: writes freely, runs `npm test` and `git status` without asking. */
const EXAMPLE = 'permissions: [read, write, execute]\ntool_policy: { write_file: allow }\nallowed_commands: ["npm test", "git status*"]';
const ROLES: Record<string, string> = {
  example: EXAMPLE,
  trusting: 'permissions: [read, write, execute]\ntool_policy: { write_file: allow }\nallowed_commands: [{ pattern: "npm test", trust_agent_code: true }]',
};

const write = (id: string, file: string, content: string): FakeToolCall => ({ id, name: "write_file", arguments: { path: file, content } });
const cmd = (id: string, command: string): FakeToolCall => ({ id, name: "run_command", arguments: { command } });
const evilPackage = (marker: string) => JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: `touch ${marker}` } });

const SCENARIOS: Record<string, { role: string; calls: FakeToolCall[] }> = {
  npm: {
    role: "example",
    calls: [cmd("np_1", "npm test"), write("np_2", "package.json", evilPackage("agent-code-ran.txt")), cmd("np_3", "npm test"), cmd("np_4", "npm test"), write("np_5", "src.js", "//"), cmd("np_6", "npm test")],
  },
  bare: {
    role: "example",
    calls: [
      write("gb_1", "HEAD", "ref: refs/heads/main\n"),
      write("gb_2", "config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch fsmonitor-ran.txt; false\"\n"),
      write("gb_3", "objects/info/keep", ""),
      write("gb_4", "refs/heads/keep", ""),
      cmd("gb_5", "git status"),
    ],
  },
  trusting: { role: "trusting", calls: [write("tr_1", "package.json", evilPackage("trusted-ran.txt")), cmd("tr_2", "npm test")] },
};

let fake: FakeOpenAI;
let server: TestServer;
let home: string;
/** Set by a test before its agent's next call: the scripted model waits for it (a planted file). */
const gates: Record<string, Promise<void> | undefined> = {};

function scenarioOf(body: FakeRequestBody): string {
  return /scenario:([a-z]+)/.exec(JSON.stringify(body.messages ?? []))?.[1] ?? "none";
}

async function handler(body: FakeRequestBody): Promise<Script> {
  const messages = (body.messages ?? []) as Msg[];
  const name = scenarioOf(body);
  const isLeader = ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");
  if (isLeader) {
    if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: SCENARIOS[name]!.role, task: `scenario:${name} do it` } }]);
    return fakeText("SUMMARY: noted.");
  }
  const done = messages.filter((m) => m.role === "assistant" && (m.tool_calls ?? []).length).length;
  const calls = SCENARIOS[name]!.calls;
  if (done < calls.length) {
    await gates[`${name}:${done}`];
    return fakeToolCalls([calls[done]!]);
  }
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "done" } }]);
}

async function start(name: string, prepare: (project: string) => void): Promise<{ id: string; project: string }> {
  const project = realpathSync(tempDir(`astrion-allow-${name}-`));
  prepare(project);
  const created = await server.api("POST", "/api/conversations", { title: `allow ${name}`, project_path: project });
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: `scenario:${name}` })).status).toBe(202);
  return { id, project };
}

const agent = (id: string) => firstAgent(server, id);
const result = (id: string, callId: string) => waitResult(server, id, callId, 60_000);
const waitApproval = (id: string, callId: string) => waitApprovalOf(server, id, callId, 60_000);

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const [id, extra] of Object.entries(ROLES)) writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: ${id}\ndescription: The ${id} role for tests\n${extra}\n---\nYou work on the project.\n`);
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-fake-allow", ASTRION_LEADER_BATCH_MS: "0", ASTRION_TOOL_OUTPUT_MAX: "100000" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("an allow-listed command never runs code an agent wrote without a person", () => {
  it("asks again before npm test once the agent rewrote package.json, and runs it only when approved", async () => {
    const { id, project } = await start("npm", (p) => writeFileSync(path.join(p, "package.json"), evilPackage("person-test-ran.txt")));
    // The person's own package.json: allow-listed, no agent change yet, it runs without asking.
    expect(JSON.parse(await result(id, "np_1"))).toMatchObject({ exit_code: 0 });
    expect(existsSync(path.join(project, "person-test-ran.txt"))).toBe(true);
    expect(JSON.parse(await result(id, "np_2"))).toMatchObject({ path: "package.json" });
    // The same allow-listed command now runs the agent's script: it waits, and the card says why.
    const { agentId, entry } = await waitApproval(id, "np_3");
    expect(entry).toMatchObject({ command: "npm test", held: { code: "agent_changed_files", detail: "npm test" } });
    expect(existsSync(path.join(project, "agent-code-ran.txt"))).toBe(false);
    const timeline = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string; envelope: { type: string; payload: Record<string, any> } }>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(timeline.some((r) => r.action === "approval" && r.envelope.type === "request" && r.envelope.payload.held?.code === "agent_changed_files")).toBe(true);
    // The person approves: it runs, and the changes it was asked about count as reviewed.
    expect((await server.api("POST", `/api/conversations/${id}/agents/${agentId}/approvals`, { tool_call_id: "np_3", decision: "approve" })).status).toBe(200);
    expect(JSON.parse(await result(id, "np_3"))).toMatchObject({ exit_code: 0 });
    expect(existsSync(path.join(project, "agent-code-ran.txt"))).toBe(true);
    expect(JSON.parse(await result(id, "np_4"))).toMatchObject({ exit_code: 0 });
    // Another change: asked again.
    expect((await waitApproval(id, "np_6")).entry).toMatchObject({ held: { code: "agent_changed_files" } });
  });

  it("refuses the files that would make the project a bare repository, and runs an allow-listed git status hardened", async () => {
    let plant!: () => void;
    gates["bare:4"] = new Promise<void>((resolve) => (plant = resolve));
    const { id, project } = await start("bare", () => {});
    expect(await result(id, "gb_1")).toMatch(/protected_path|\.git or a git repository/);
    expect(existsSync(path.join(project, "HEAD"))).toBe(false);
    for (const call of ["gb_2", "gb_3", "gb_4"]) expect(JSON.parse(await result(id, call))).toHaveProperty("path");
    // HEAD put there by another way (an MCP server's file tool, a person's mistake): the project is now a repository to plain git.
    writeFileSync(path.join(project, "HEAD"), "ref: refs/heads/main\n");
    plant();
    const ran = JSON.parse(await result(id, "gb_5"));
    expect(ran.output).toMatch(/bare repository|not a git repository/);
    expect(existsSync(path.join(project, "fsmonitor-ran.txt"))).toBe(false);
    expect((await agent(id)).agent.metadata.pending_tool_calls ?? []).toEqual([]);
  });

  it("runs an entry that trusts agent-written code without asking (the role editor warns about it)", async () => {
    const { id, project } = await start("trusting", () => {});
    expect(JSON.parse(await result(id, "tr_2"))).toMatchObject({ exit_code: 0 });
    expect(existsSync(path.join(project, "trusted-ran.txt"))).toBe(true);
    const roles = (await server.api("GET", "/api/roles")).json;
    expect(JSON.stringify(roles)).toContain('"trust_agent_code":true');
  });
});

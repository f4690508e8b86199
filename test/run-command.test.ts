/**
 * `run_command` and the approval policy through the real server, the fake model scripting the
 * calls: a command waits for a person's approval (the agent `waiting`, the card's data in its
 * metadata, a request on the timeline), is approved or denied through the API, runs in the
 * project folder with no secret in its environment; allow-lists (role and "always allow"), a
 * role's deny, write_file asking by default; a deadline and Stop kill the whole process tree;
 * a SIGKILL of the server mid-command leaves it interrupted, not run again; an approval waits
 * across a restart.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { firstAgent, waitApproval as waitApprovalOf, waitResult as waitResultOf } from "./helpers/agent-calls";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string } }> };

const ROLES: Record<string, string> = {
  // Asks before every command (the default for run_command).
  runner: "permissions: [read, execute]",
  // Runs these without asking.
  lister: 'permissions: [read, execute]\nallowed_commands: ["cd ..", "pwd", "echo allowed*"]',
  // Never runs a command.
  denier: "permissions: [read, execute]\ntool_policy: { run_command: deny }",
  // Runs any command without asking (the deadline and Stop cases).
  free: "permissions: [read, execute]\ntool_policy: { run_command: allow }",
  // Writes, asking first (the default for write_file).
  writer: "permissions: [read, write]",
};

const cmd = (id: string, command: string, extra: Record<string, unknown> = {}): FakeToolCall => ({ id, name: "run_command", arguments: { command, ...extra } });

/** Each scenario: its role and the calls its agent makes, one step (a call or several) per model call, then a report. */
const SCENARIOS: Record<string, { role: string; calls: Array<FakeToolCall | FakeToolCall[]> }> = {
  approve: { role: "runner", calls: [cmd("ap_1", "echo approved >> ran.txt && pwd && env")] },
  confine: { role: "lister", calls: [cmd("cf_1", "cd .. && pwd"), cmd("cf_2", "pwd", { cwd: "/", path: ".." })] },
  allowlist: { role: "lister", calls: [cmd("al_1", "echo allowed-one"), cmd("al_2", "echo allowed-two; touch sneaky.txt")] },
  policy: { role: "denier", calls: [cmd("po_1", "touch nope.txt")] },
  always: { role: "runner", calls: [cmd("aw_1", "echo always-1"), cmd("aw_2", "echo always-2")] },
  timeout: { role: "free", calls: [cmd("to_1", "sleep 30 & echo $! > sleep.pid; wait", { timeout_seconds: 1 })] },
  stop: { role: "free", calls: [cmd("st_1", "sleep 30 & echo $! > sleep.pid; touch started.txt; wait", { timeout_seconds: 120 })] },
  write: { role: "writer", calls: [{ id: "wr_1", name: "write_file", arguments: { path: "w.txt", content: "hello" } }] },
  restart: { role: "runner", calls: [cmd("rs_1", "echo after-restart >> restart.txt")] },
  both: { role: "runner", calls: [[{ id: "bo_q", name: "ask_master", arguments: { question: "May I run it?" } }, cmd("bo_1", "echo both >> both.txt")]] },
  shutdown: { role: "free", calls: [cmd("sd_1", "sleep 30 & echo $! > sleep.pid; touch started.txt; wait", { timeout_seconds: 120 })] },
  crash: { role: "free", calls: [cmd("cr_1", "sleep 30 & echo $! > sleep.pid; echo once >> once.txt; wait", { timeout_seconds: 120 })] },
};

const SECRETS = {
  GITHUB_TOKEN: "ghp-should-not-leak",
  SOME_SERVICE_API_KEY: "sk-should-not-leak",
  FAKE_OPENAI_KEY: "sk-fake-run",
  // A credential in a URL, npm's token, and innocent names whose values are token shapes.
  DATABASE_URL: "postgres://app:Db-pass-should-not-leak@db.internal:5432/orders",
  NPM_CONFIG_AUTHTOKEN: "npm-token-should-not-leak",
  MY_SETTING: "ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz",
  PAYMENTS_MODE: "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
};
/** An ordinary variable (no `ASTRION_` prefix: those are the app's settings, withheld too). */
const INNOCENT = { TEAM_INNOCENT_SETTING: "hello-world", PROXY_FOR_TESTS: "http://proxy:3128" };
const serverEnv = { ...SECRETS, ...INNOCENT, ASTRION_LEADER_BATCH_MS: "0", ASTRION_TOOL_OUTPUT_MAX: "100000", ASTRION_COMMAND_KILL_GRACE_MS: "500" };

let fake: FakeOpenAI;
let server: TestServer;
let home: string;

function scenarioOf(body: FakeRequestBody): string {
  return /scenario:([a-z]+)/.exec(JSON.stringify(body.messages ?? []))?.[1] ?? "none";
}

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  const name = scenarioOf(body);
  const isLeader = ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");
  if (isLeader) {
    if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: SCENARIOS[name]!.role, task: `scenario:${name} run the commands` } }]);
    return fakeText("SUMMARY: noted.");
  }
  const done = messages.filter((m) => m.role === "assistant" && (m.tool_calls ?? []).length).length;
  const calls = SCENARIOS[name]!.calls;
  if (done < calls.length) return fakeToolCalls([calls[done]!].flat());
  const results = messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `results:\n${results.join("\n")}` } }]);
}

const projects: Record<string, string> = {};

async function start(name: string): Promise<{ id: string; project: string }> {
  const project = realpathSync(tempDir(`astrion-cmd-${name}-`));
  projects[name] = project;
  const created = await server.api("POST", "/api/conversations", { title: `cmd ${name}`, project_path: project });
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: `scenario:${name}` })).status).toBe(202);
  return { id, project };
}

const agent = (id: string) => firstAgent(server, id);
const waitResult = (id: string, callId: string, timeoutMs?: number) => waitResultOf(server, id, callId, timeoutMs);
const waitApproval = (id: string, callId: string) => waitApprovalOf(server, id, callId);

function decide(id: string, agentId: number, body: Record<string, unknown>) {
  return server.api("POST", `/api/conversations/${id}/agents/${agentId}/approvals`, body);
}

async function timeline(id: string): Promise<Array<{ action: string; status: string; envelope: { type: string; payload: Record<string, unknown> } }>> {
  return (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records;
}

/** Whether a process runs (a zombie does not: it was killed and waits to be reaped). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function stopped(pid: number): Promise<boolean> {
  return until(`process ${pid} to end`, () => !alive(pid), 10_000);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const [id, extra] of Object.entries(ROLES)) writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: ${id}\ndescription: The ${id} role for tests\n${extra}\n---\nYou run commands.\n`);
  server = await startServer({ home, env: serverEnv });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("run_command with a person's approval", () => {
  it("waits for approval like ask_master, survives Stop, runs once approved in the project folder without the server's secrets", async () => {
    const { id, project } = await start("approve");
    const { agentId, entry } = await waitApproval(id, "ap_1");
    expect(entry).toMatchObject({ tool_name: "run_command", kind: "approval", effect: "execute", command: "echo approved >> ran.txt && pwd && env", cwd: project });
    expect(existsSync(path.join(project, "ran.txt"))).toBe(false);
    expect((await timeline(id)).some((r) => r.action === "approval" && r.envelope.type === "request" && r.envelope.payload.command === entry.command)).toBe(true);

    // Clear errors: a call the agent never made, a body that makes no sense.
    expect((await decide(id, agentId, { tool_call_id: "no_such_call", decision: "approve" })).status).toBe(404);
    const bad = await decide(id, agentId, { tool_call_id: "ap_1", decision: "deny", always: true });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBeTruthy();
    expect((await decide(id, agentId, { tool_call_id: "ap_1", decision: "maybe" })).status).toBe(400);
    // The protections of every mutating route: another origin, or a body that is not JSON, changes nothing.
    const approvals = `/api/conversations/${id}/agents/${agentId}/approvals`;
    expect((await server.api("POST", approvals, { tool_call_id: "ap_1", decision: "approve" }, { origin: "http://evil.example" })).status).toBe(403);
    expect((await server.api("POST", approvals, { tool_call_id: "ap_1", decision: "approve" }, { "content-type": "text/plain" })).status).toBe(415);
    expect((await agent(id)).agent.metadata).toMatchObject({ status: "waiting" });

    // Stop leaves the wait as it leaves a question's: still waiting, still decidable.
    expect((await server.api("POST", `/api/conversations/${id}/stop`, {})).status).toBeLessThan(300);
    expect((await agent(id)).agent.metadata).toMatchObject({ status: "waiting" });

    const ok = await decide(id, agentId, { tool_call_id: "ap_1", decision: "approve" });
    expect(ok.status).toBe(200);
    const result = JSON.parse(await waitResult(id, "ap_1"));
    expect(result).toMatchObject({ exit_code: 0, cwd: project, mode: "shell", timed_out: false });
    expect(typeof result.duration_ms).toBe("number");
    expect(result.output.split("\n")[0]).toBe(project);
    // The environment: ordinary variables yes, secrets and the app's own no.
    expect(result.output).toMatch(/^PATH=/m);
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(result.output).not.toContain(`${name}=`);
      expect(result.output).not.toContain(value);
    }
    expect(result.output).not.toMatch(/^(ASTRION_HOME|ASTRION_LEADER_BATCH_MS|PORT|HOST|NODE_ENV)=/m);
    for (const [name, value] of Object.entries(INNOCENT)) expect(result.output).toContain(`\n${name}=${value}\n`);
    expect(readFileSync(path.join(project, "ran.txt"), "utf8")).toBe("approved\n");
    // Decided once: a second decision is a conflict.
    expect((await decide(id, agentId, { tool_call_id: "ap_1", decision: "approve" })).status).toBe(409);
    expect((await timeline(id)).some((r) => r.action === "approval" && r.envelope.type === "reply" && r.envelope.payload.decision === "approve")).toBe(true);
    expect((await timeline(id)).some((r) => r.action === "run_command" && r.status === "ok")).toBe(true);
  });

  it("always runs in the project folder: a cd in one command does not move the next, and arguments name no folder", async () => {
    const { id, project } = await start("confine");
    const first = JSON.parse(await waitResult(id, "cf_1"));
    expect(first).toMatchObject({ cwd: project, exit_code: 0 });
    expect(first.output.trim()).toBe(path.dirname(project));
    const second = JSON.parse(await waitResult(id, "cf_2"));
    expect(second).toMatchObject({ cwd: project, exit_code: 0, mode: "argv" });
    expect(second.output.trim()).toBe(project);
  });

  it("runs what the role's allow-list allows without asking; a compound line with an unlisted part asks, and a denial carries the reason", async () => {
    const { id, project } = await start("allowlist");
    expect(JSON.parse(await waitResult(id, "al_1"))).toMatchObject({ exit_code: 0, output: "allowed-one\n" });
    const { agentId, entry } = await waitApproval(id, "al_2");
    expect(entry.command).toBe("echo allowed-two; touch sneaky.txt");
    expect((await decide(id, agentId, { tool_call_id: "al_2", decision: "deny", reason: "no touching files" })).status).toBe(200);
    expect(await waitResult(id, "al_2")).toMatch(/denied by User: no touching files/);
    expect(existsSync(path.join(project, "sneaky.txt"))).toBe(false);
    // The agent read the refusal and went on: its report carries the reason.
    await until("the agent's report", async () => ((await agent(id)).agent.metadata.reported ? true : null));
  });

  it("refuses without asking what the role's tool_policy denies", async () => {
    const { id, project } = await start("policy");
    expect(await waitResult(id, "po_1")).toMatch(/denied by policy: your role's tool_policy denies run_command/);
    expect(existsSync(path.join(project, "nope.txt"))).toBe(false);
    expect((await timeline(id)).some((r) => r.action === "run_command" && r.status === "refused" && r.envelope.payload.code === "policy_deny")).toBe(true);
    expect((await timeline(id)).some((r) => r.action === "approval")).toBe(false);
  });

  it("'always allow' with a pattern adds it to the conversation's allow-list: the next matching command runs without asking", async () => {
    const { id } = await start("always");
    const { agentId } = await waitApproval(id, "aw_1");
    expect((await decide(id, agentId, { tool_call_id: "aw_1", decision: "approve", always: true, pattern: "echo always-*" })).status).toBe(200);
    expect(JSON.parse(await waitResult(id, "aw_1")).output).toBe("always-1\n");
    expect(JSON.parse(await waitResult(id, "aw_2")).output).toBe("always-2\n");
    expect((await timeline(id)).filter((r) => r.action === "approval" && r.envelope.type === "request")).toHaveLength(1);
    const meta = JSON.parse(readFileSync(path.join(home, "conversations", id, "metadata.json"), "utf8"));
    expect(meta.approval_policy).toEqual({ allowed_commands: ["echo always-*"], tool_policy: {} });
  });

  it("a question and a command in one answer: the agent waits for both, in either order", async () => {
    const { id, project } = await start("both");
    const { agentId } = await waitApproval(id, "bo_1");
    const question = await until("the question pending too", async () => ((await agent(id)).agent.metadata.pending_tool_calls as Array<Record<string, string>>).find((p) => p.tool_name === "ask_master"));
    expect((await server.api("POST", `/api/conversations/${id}/agents/${agentId}/answers`, { question_id: question.question_id, answer: "yes" })).status).toBe(200);
    // Answered, but the command still waits for its approval: the agent stays waiting and runs nothing.
    const after = (await agent(id)).agent.metadata;
    expect(after.status).toBe("waiting");
    expect((after.pending_tool_calls as Array<Record<string, string>>).map((p) => p.tool_call_id)).toEqual(["bo_1"]);
    expect(existsSync(path.join(project, "both.txt"))).toBe(false);
    expect((await decide(id, agentId, { tool_call_id: "bo_1", decision: "approve" })).status).toBe(200);
    expect(JSON.parse(await waitResult(id, "bo_1"))).toMatchObject({ exit_code: 0 });
    expect(readFileSync(path.join(project, "both.txt"), "utf8")).toBe("both\n");
  });

  it("asks before write_file by default, like any tool that writes", async () => {
    const { id, project } = await start("write");
    const { agentId, entry } = await waitApproval(id, "wr_1");
    expect(entry).toMatchObject({ tool_name: "write_file", effect: "write", cwd: project });
    expect(String(entry.arguments_preview)).toContain("w.txt");
    expect(existsSync(path.join(project, "w.txt"))).toBe(false);
    expect((await decide(id, agentId, { tool_call_id: "wr_1", decision: "approve", always: true })).status).toBe(200);
    await waitResult(id, "wr_1");
    expect(readFileSync(path.join(project, "w.txt"), "utf8")).toBe("hello");
    const meta = JSON.parse(readFileSync(path.join(home, "conversations", id, "metadata.json"), "utf8"));
    expect(meta.approval_policy.tool_policy).toEqual({ write_file: "allow" });
  });

  it("kills the whole process tree at the deadline: the sleep child stays killed", async () => {
    const { id, project } = await start("timeout");
    const result = JSON.parse(await waitResult(id, "to_1"));
    expect(result).toMatchObject({ timed_out: true, cwd: project });
    const pid = Number(readFileSync(path.join(project, "sleep.pid"), "utf8"));
    expect(await stopped(pid)).toBe(true);
    expect((await timeline(id)).some((r) => r.action === "run_command" && r.status === "timed_out")).toBe(true);
  });

  it("Stop during a command kills its process tree and the agent stops", async () => {
    const { id, project } = await start("stop");
    await until("the command running", () => existsSync(path.join(project, "started.txt")));
    const pid = Number(readFileSync(path.join(project, "sleep.pid"), "utf8"));
    expect(alive(pid)).toBe(true);
    expect((await server.api("POST", `/api/conversations/${id}/stop`, {})).status).toBeLessThan(300);
    expect(JSON.parse(await waitResult(id, "st_1"))).toMatchObject({ stopped: true, timed_out: false });
    expect(await stopped(pid)).toBe(true);
    await until("the agent no longer running", async () => ((await agent(id)).agent.metadata.status !== "running" ? true : null));
  });
});

describe("run_command across restarts", () => {
  it("an approval waits across a restart and runs once approved after it", async () => {
    const { id, project } = await start("restart");
    await waitApproval(id, "rs_1");
    await server.stop();
    server = await startServer({ home, env: serverEnv });
    const { agentId } = await waitApproval(id, "rs_1");
    expect(existsSync(path.join(project, "restart.txt"))).toBe(false);
    expect((await decide(id, agentId, { tool_call_id: "rs_1", decision: "approve" })).status).toBe(200);
    expect(JSON.parse(await waitResult(id, "rs_1"))).toMatchObject({ exit_code: 0 });
    expect(readFileSync(path.join(project, "restart.txt"), "utf8")).toBe("after-restart\n");
  });

  it("a clean stop of the server mid-command ends the command's processes; after the restart it is not run again", async () => {
    const { id, project } = await start("shutdown");
    await until("the command running", () => existsSync(path.join(project, "started.txt")));
    const pid = Number(readFileSync(path.join(project, "sleep.pid"), "utf8"));
    await server.stop();
    expect(await stopped(pid)).toBe(true);
    server = await startServer({ home, env: serverEnv });
    // Stopped by the shutdown (its result saved) or cut short (interrupted): never run a second time.
    const result = await waitResult(id, "sd_1");
    expect(/interrupted/.test(result) || JSON.parse(result).stopped === true).toBe(true);
    await until("the agent's report", async () => ((await agent(id)).agent.metadata.reported ? true : null));
    expect(readFileSync(path.join(project, "sleep.pid"), "utf8")).toBe(`${pid}\n`);
  });

  it("a SIGKILL of the server mid-command: reported as interrupted, not run again, its leftover processes killed", async () => {
    const { id, project } = await start("crash");
    await until("the command running", () => existsSync(path.join(project, "once.txt")));
    const pid = Number(readFileSync(path.join(project, "sleep.pid"), "utf8"));
    await new Promise<void>((resolve) => {
      server.proc.once("exit", () => resolve());
      process.kill(-server.proc.pid!, "SIGKILL");
    });
    // The command is in its own process group: the server's death alone does not end it.
    expect(alive(pid)).toBe(true);
    server = await startServer({ home, env: serverEnv });
    expect(await waitResult(id, "cr_1")).toMatch(/interrupted: the server stopped while run_command was running; it was not run again/);
    expect(await stopped(pid)).toBe(true);
    await until("the agent's report", async () => ((await agent(id)).agent.metadata.reported ? true : null));
    expect(readFileSync(path.join(project, "once.txt"), "utf8")).toBe("once\n");
    expect((await timeline(id)).some((r) => r.action === "run_command" && r.status === "interrupted")).toBe(true);
  });
});

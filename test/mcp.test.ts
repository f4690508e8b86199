/**
 * MCP servers through the real built server, the fake model scripting `mcp__…` calls, against
 * real servers: `@modelcontextprotocol/server-everything` over stdio,
 * `@modelcontextprotocol/server-filesystem` confined to a temporary folder, and a Streamable
 * HTTP server built with the SDK's server classes (test/helpers/mcp-http.ts), and a stdio one
 * that tells its argv (test/helpers/mcp-argv-server.ts). Covers what the
 * model is offered, calls and their results, errors, a crash with restart, back-off, a deadline,
 * list_changed, Stop and idle stop, role grants, and that secrets never leave the server.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type FakeToolCall, type Script } from "./helpers/fake-openai";
import { LONG_TOOL_NAME, startMcpHttpServer, type McpHttpTestServer } from "./helpers/mcp-http";
import { writeFakeModels } from "./helpers/models-file";
import { firstEvents, REPO_ROOT, startServer, tempDir, type TestServer } from "./helpers/server";
import { openSse, type SseConnection } from "./helpers/sse";
import { until } from "./helpers/wait";

const LITERAL_SECRET = "sk-literal-mcp-secret-7f3a9c";
const HTTP_TOKEN = "tok-expanded-from-env-91bd";
/** Expanded into the argv server's `args` (`--token=${MCP_ARG_SECRET}`) from the app's environment. */
const ARG_SECRET = "argv-secret-token-5c1e77";
const BIN = path.join(REPO_ROOT, "node_modules", ".bin");

/** Every role but `fs-ask` allows its MCP tools (the approval policy asks before a tool that writes, by default). */
const ALLOW_MCP = '\ntool_policy: { "mcp__*": allow }';
const ROLES: Record<string, string> = {
  "ev-role": `mcp_servers: [everything]${ALLOW_MCP}`,
  "fs-role": `tools: Read, mcp__fs__read_text_file, mcp__fs__write_file${ALLOW_MCP}`,
  "http-role": `tools: Read, mcp__remote${ALLOW_MCP}`,
  "broken-role": `mcp_servers: [broken]${ALLOW_MCP}`,
  "fs-ask": "tools: mcp__fs__read_text_file, mcp__fs__write_file",
  "argv-role": `mcp_servers: [argv]${ALLOW_MCP}`,
};

type Msg = { role: string; content?: unknown; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string };
type Tool = { function: { name: string; description: string; parameters: Record<string, unknown> } };

let fake: FakeOpenAI;
let server: TestServer;
let remote: McpHttpTestServer;
let project: string;
let fsRoot: string;
/** XDG_DATA_HOME of the app: a well-known variable whose expansion in args is no secret. */
let xdgData: string;
/** Each scenario's steps: what the agent calls at step n (its n-th model call); the last step reports. */
const SCENARIOS: Record<string, Array<(body: FakeRequestBody) => FakeToolCall[] | Promise<FakeToolCall[]>>> = {};

const messagesOf = (body: FakeRequestBody) => (body.messages ?? []) as Msg[];
const toolsOf = (body: FakeRequestBody) => (body.tools ?? []) as Tool[];
const namesOf = (body: FakeRequestBody) => toolsOf(body).map((t) => t.function.name);
const scenarioOf = (body: FakeRequestBody) => /scenario:(\S+)/.exec(messagesOf(body).map((m) => String(m.content ?? "")).join("\n"))?.[1];

async function handler(body: FakeRequestBody): Promise<Script> {
  const messages = messagesOf(body);
  if (namesOf(body).includes("create_sub_agent")) {
    const created = messages.some((m) => m.tool_calls?.some((c) => c.function.name === "create_sub_agent"));
    if (created) return fakeText("waiting");
    const last = [...messages].reverse().find((m) => m.role === "user");
    const [, role, scenario, n] = /run (\S+) (\S+)(?: x(\d+))?/.exec(String(last?.content ?? "")) ?? [];
    return fakeToolCalls(Array.from({ length: Number(n ?? 1) }, () => ({ name: "create_sub_agent", arguments: { role_id: role!, task: `scenario:${scenario}` } })));
  }
  const scenario = scenarioOf(body);
  const steps = scenario ? SCENARIOS[scenario] : undefined;
  const step = messages.filter((m) => m.role === "assistant" && m.tool_calls?.length).length;
  if (!steps || step >= steps.length) return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: `done ${scenario}` } }]);
  return fakeToolCalls(await steps[step]!(body));
}

/** Runs `role` on `scenario` in a new conversation; resolves with its id once the agent is done. */
async function run(role: string, scenario: string, agents = 1): Promise<string> {
  const created = await server.api("POST", "/api/conversations", { title: scenario, project_path: project });
  const id = created.json.conversation.id as string;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: `run ${role} ${scenario} x${agents}` })).status).toBe(202);
  await until(`${scenario} finished`, async () => {
    const list = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { status: string; reported?: boolean } }>;
    return list.length === agents && list.every((a) => a.metadata.status !== "running" && a.metadata.reported) ? true : null;
  }, 60_000);
  return id;
}

/** The requests of one scenario's agent, in order. */
const requestsOf = (scenario: string) => fake.requests.filter((r) => r.body && !namesOf(r.body).includes("create_sub_agent") && scenarioOf(r.body) === scenario).map((r) => r.body!);

/** The tool results one scenario's agent received, by tool call id. */
function resultsOf(scenario: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const body of requestsOf(scenario)) for (const m of messagesOf(body)) if (m.role === "tool") out[m.tool_call_id!] = String(m.content);
  return out;
}

async function timeline(id: string) {
  return (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string; status: string; resource: string | null; envelope: { payload: Record<string, unknown> } }>;
}

async function mcpStatus(name: string) {
  const list = (await server.api("GET", "/api/mcp/servers")).json as { servers: Array<{ name: string; status: { running_in: number; processes: Array<{ conversation_id: string; pid: number | null }>; crashes: number; last_error: string | null } }> };
  return list.servers.find((s) => s.name === name)!.status;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Conversation ids a later test needs. */
const requests: Record<string, string> = {};
let sse: SseConnection;
const bodies: string[] = [];

beforeAll(async () => {
  remote = await startMcpHttpServer({ token: HTTP_TOKEN, team: "astrion-team" });
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const [id, extra] of Object.entries(ROLES)) writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: ${id}\ndescription: A role with ${id}\n${extra}\n---\nYou work.\n`);
  project = tempDir("astrion-project-");
  fsRoot = tempDir("astrion-mcp-fs-");
  writeFileSync(path.join(fsRoot, "notes.txt"), "the fs server reads this");
  xdgData = tempDir("astrion-xdg-data-");
  writeFileSync(
    path.join(home, "mcp.json"),
    JSON.stringify({
      mcpServers: {
        everything: { command: path.join(BIN, "mcp-server-everything"), env: { LITERAL_SECRET } },
        fs: { type: "stdio", command: path.join(BIN, "mcp-server-filesystem"), args: ["${MCP_FS_ROOT}"] },
        remote: { type: "http", url: remote.url, headers: { Authorization: "Bearer ${MCP_TEST_TOKEN}", "X-Team": "${MCP_TEAM_UNSET:-astrion-team}" } },
        broken: { command: process.execPath, args: ["-e", "process.stderr.write('boom on start'); process.exit(3)"] },
        argv: { command: process.execPath, args: ["--no-warnings", path.join(REPO_ROOT, "test", "helpers", "mcp-argv-server.ts"), "--token=${MCP_ARG_SECRET}", "--data=${XDG_DATA_HOME}/argv"] },
      },
    }),
  );
  server = await startServer({
    home,
    env: {
      FAKE_OPENAI_KEY: "sk-mcp",
      ASTRION_LEADER_BATCH_MS: "0",
      MCP_FS_ROOT: fsRoot,
      MCP_TEST_TOKEN: HTTP_TOKEN,
      MCP_ARG_SECRET: ARG_SECRET,
      XDG_DATA_HOME: xdgData,
      ASTRION_MCP_CALL_TIMEOUT_MS: "1500",
      ASTRION_MCP_IDLE_MS: "4000",
      ASTRION_MCP_RESTART_BACKOFF_MS: "60000",
    },
  });
}, 180_000);

afterAll(async () => {
  sse?.close();
  await server?.stop();
  await fake?.close();
  await remote?.close();
});

describe("MCP servers", () => {
  it("offers a granted server's tools with their own schema, runs calls, and keeps every secret out of what leaves the server", async () => {
    SCENARIOS.everything = [
      () => [
        { id: "call_echo", name: "mcp__everything__echo", arguments: { message: "hello mcp" } },
        { id: "call_sum", name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } },
        { id: "call_env", name: "mcp__everything__get-env", arguments: {} },
        { id: "call_bad", name: "mcp__everything__get-sum", arguments: { a: "x" } },
        { id: "call_other", name: "mcp__remote__echo", arguments: { text: "not mine" } },
      ],
    ];
    const id = await run("ev-role", "everything");
    const [first] = requestsOf("everything");
    const echo = toolsOf(first!).find((t) => t.function.name === "mcp__everything__echo")!;
    expect(echo.function.description).toMatch(/echo/i);
    expect(Object.keys((echo.function.parameters as { properties: object }).properties)).toEqual(["message"]);
    expect(namesOf(first!)).toContain("mcp__everything__get-sum");
    // Only the granted server: the role has no remote tools.
    expect(namesOf(first!).some((n) => n.startsWith("mcp__remote__"))).toBe(false);

    const results = resultsOf("everything");
    expect(results.call_echo).toContain("hello mcp");
    expect(results.call_sum).toContain("5");
    // The server echoes its environment: the literal secret from mcp.json is scrubbed on the way.
    expect(results.call_env).toContain("LITERAL_SECRET");
    expect(results.call_env).toContain("[redacted]");
    expect(results.call_env).not.toContain(LITERAL_SECRET);
    // An MCP error (bad arguments) is a tool error the model reads.
    expect(JSON.parse(results.call_bad!).error).toMatch(/get-sum/);
    expect(JSON.parse(results.call_other!).error).toMatch(/permission denied: .*mcp__remote__echo/);

    const records = await timeline(id);
    const audited = records.find((r) => r.action === "mcp__everything__echo")!;
    expect(audited).toMatchObject({ status: "ok", resource: "mcp:everything/echo" });
    expect(audited.envelope.payload).toMatchObject({ server: "everything", tool: "echo", effect: "read", outcome: "ok" });
    expect(records.some((r) => r.action === "mcp__remote__echo" && r.status === "refused")).toBe(true);

    // The secret never leaves: not in API answers, the timeline, SSE frames or the server's output.
    sse = await openSse(server, `/api/conversations/${id}/events`);
    await sse.waitFor(() => sse.events.length > 0);
    bodies.push((await server.api("GET", "/api/mcp/servers")).text);
    bodies.push((await server.api("GET", `/api/conversations/${id}/agents/1`)).text);
    bodies.push((await server.api("GET", `/api/conversations/${id}/timeline`)).text);
    bodies.push((await server.api("GET", "/api/health")).text);
    bodies.push(JSON.stringify((await server.api("POST", "/api/mcp/servers/everything/test")).json));
    for (const text of [...bodies, sse.raw(), server.output()]) {
      expect(text).not.toContain(LITERAL_SECRET);
      expect(text).not.toContain(HTTP_TOKEN);
    }
    const listed = JSON.parse(bodies[0]!) as { servers: Array<{ name: string; env?: Record<string, string>; headers?: Record<string, string> }> };
    expect(listed.servers.find((s) => s.name === "everything")!.env!.LITERAL_SECRET).toBe("••••••••");
    // A reference is shown as written.
    expect(listed.servers.find((s) => s.name === "remote")!.headers!.Authorization).toBe("Bearer ${MCP_TEST_TOKEN}");
  });

  it("scrubs a secret expanded into a stdio server's args from all it says: tool descriptions, results, stderr in errors", async () => {
    SCENARIOS.argv = [() => [{ id: "call_whoami", name: "mcp__argv__whoami", arguments: {} }], () => [{ id: "call_crash", name: "mcp__argv__crash", arguments: {} }]];
    const created = await server.api("POST", "/api/conversations", { title: "argv", project_path: project });
    const id = created.json.conversation.id as string;
    requests.argv = id;
    // Open before the run: the sub-agent's messages are streamed as they are made.
    const stream = await openSse(server, `/api/conversations/${id}/events`);
    try {
      await stream.waitFor(() => stream.events.length > 0);
      expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "run argv-role argv" })).status).toBe(202);
      const agentId = await until("argv finished", async () => {
        const agents = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { agent_id: number; status: string; reported?: boolean } }>;
        return agents[0]?.metadata.reported && agents[0].metadata.status !== "running" ? agents[0].metadata.agent_id : null;
      }, 60_000);
      requests.argvAgent = String(agentId);
      await stream.waitFor(() => stream.raw().includes("done argv"));

      // What the model saw: the tool's description and every result, the token in none.
      const reqs = requestsOf("argv");
      const whoami = toolsOf(reqs[0]!).find((t) => t.function.name === "mcp__argv__whoami")!;
      expect(whoami.function.description).toContain('"--token=[redacted]"');
      const results = resultsOf("argv");
      expect(results.call_whoami).toContain('\\"--token=[redacted]\\"');
      // A resource link's uri and name are scrubbed too.
      expect(results.call_whoami).toMatch(/resource link https:\/\/example\.invalid\/started\?arg=--token%3D\[redacted\]&raw=--token=\[redacted\] \(started with --token=\[redacted\]\)/);
      // What a well-known variable (XDG_DATA_HOME) expanded to is no secret: shown as it is.
      expect(results.call_whoami).toContain(`--data=${xdgData}/argv`);
      // The server died: the error the model reads holds its stderr tail, scrubbed.
      expect(JSON.parse(results.call_crash!).error).toMatch(/stderr: argv server started with \["--token=\[redacted\]"/);
      expect(JSON.stringify(reqs)).not.toContain(ARG_SECRET);

      // Nowhere else either: the agent's saved messages, the timeline, the SSE stream, the server
      // list (its last error), the app's output and every file of the conversation.
      const agentMessages = (await server.api("GET", `/api/conversations/${id}/agents/${agentId}`)).text;
      expect(agentMessages).toContain("--token=[redacted]");
      expect(stream.raw()).toContain("--token=[redacted]");
      const files = readdirSync(path.join(server.home, "conversations", id), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
      expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(["timeline.jsonl"]));
      // A seed file's temp twin may be renamed away between the listing and the read: what is left is read.
      const onDisk = files.flatMap((f) => {
        try {
          return [readFileSync(path.join(f.parentPath, f.name), "utf8")];
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOENT" && f.name.endsWith(".tmp")) return [];
          throw error;
        }
      });
      expect(onDisk.join("\n")).toContain("--token=[redacted]");
      for (const text of [agentMessages, (await server.api("GET", `/api/conversations/${id}/timeline`)).text, stream.raw(), (await server.api("GET", "/api/mcp/servers")).text, server.output(), ...onDisk]) {
        expect(text).not.toContain(ARG_SECRET);
      }
    } finally {
      stream.close();
    }
  });

  it("shares one server process between the agents of a conversation", async () => {
    SCENARIOS.shared = [() => [{ name: "mcp__everything__echo", arguments: { message: "shared" } }]];
    const id = await run("ev-role", "shared", 2);
    // Both agents called the server and got its answer…
    const echoes = new Set(requestsOf("shared").flatMap((b) => messagesOf(b).filter((m) => m.role === "tool" && String(m.content).includes("Echo: shared")).map((m) => m.tool_call_id)));
    expect(echoes.size).toBe(2);
    // …from one process.
    const processes = (await mcpStatus("everything")).processes.filter((p) => p.conversation_id === id);
    expect(processes).toHaveLength(1);
  });

  it("restarts a crashed stdio server on the next call", async () => {
    SCENARIOS.crash = [
      () => [{ id: "call_before", name: "mcp__everything__echo", arguments: { message: "before" } }],
      async () => {
        const status = await mcpStatus("everything");
        const convId = requests.crash!;
        const pid = status.processes.find((p) => p.conversation_id === convId)!.pid!;
        process.kill(pid, "SIGKILL");
        await until("the server is gone", async () => ((await mcpStatus("everything")).processes.some((p) => p.conversation_id === convId) ? null : true));
        return [{ id: "call_after", name: "mcp__everything__echo", arguments: { message: "after" } }];
      },
    ];
    const created = await server.api("POST", "/api/conversations", { title: "crash", project_path: project });
    requests.crash = created.json.conversation.id;
    await server.api("POST", `/api/conversations/${requests.crash}/messages`, { content: "run ev-role crash" });
    await until("crash finished", async () => {
      const agents = (await server.api("GET", `/api/conversations/${requests.crash}/agents`)).json.agents as Array<{ metadata: { reported?: boolean } }>;
      return agents[0]?.metadata.reported ? true : null;
    }, 60_000);
    const results = resultsOf("crash");
    expect(results.call_before).toContain("before");
    expect(results.call_after).toContain("after");
    expect((await mcpStatus("everything")).last_error).toMatch(/exited unexpectedly/);
  });

  it("confines the filesystem server to its folder and offers only the tools the role names", async () => {
    SCENARIOS.fs = [
      () => [
        { id: "call_read", name: "mcp__fs__read_text_file", arguments: { path: path.join(fsRoot, "notes.txt") } },
        { id: "call_outside", name: "mcp__fs__read_text_file", arguments: { path: "/etc/hostname" } },
        { id: "call_write", name: "mcp__fs__write_file", arguments: { path: path.join(fsRoot, "out.txt"), content: "written by mcp" } },
      ],
    ];
    const id = await run("fs-role", "fs");
    const [first] = requestsOf("fs");
    expect(namesOf(first!).filter((n) => n.startsWith("mcp__")).sort()).toEqual(["mcp__fs__read_text_file", "mcp__fs__write_file"]);
    const results = resultsOf("fs");
    expect(results.call_read).toContain("the fs server reads this");
    expect(JSON.parse(results.call_outside!).error).toMatch(/denied|outside|not allowed/i);
    expect(readFileSync(path.join(fsRoot, "out.txt"), "utf8")).toBe("written by mcp");
    const write = (await timeline(id)).find((r) => r.action === "mcp__fs__write_file")!;
    expect(write.envelope.payload).toMatchObject({ effect: "write", outcome: "ok" });
    requests.fs = id;
  });

  it("asks a person before an MCP tool that writes (the default policy), runs it once approved, and lets a read-only one through", async () => {
    const target = path.join(fsRoot, "asked.txt");
    SCENARIOS["fs-ask"] = [
      () => [{ id: "call_ask_read", name: "mcp__fs__read_text_file", arguments: { path: path.join(fsRoot, "notes.txt") } }],
      () => [{ id: "call_ask_write", name: "mcp__fs__write_file", arguments: { path: target, content: "written after approval" } }],
    ];
    const created = await server.api("POST", "/api/conversations", { title: "fs-ask", project_path: project });
    const id = created.json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "run fs-ask fs-ask x1" })).status).toBe(202);
    const waiting = await until("the MCP write waits for approval", async () => {
      const [agent] = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { agent_id: number; status: string; pending_tool_calls?: Array<Record<string, unknown>> } }>;
      const entry = agent?.metadata.pending_tool_calls?.find((p) => p.kind === "approval");
      return agent && entry ? { agentId: agent.metadata.agent_id, status: agent.metadata.status, entry } : null;
    }, 30_000);
    expect(waiting.status).toBe("waiting");
    expect(waiting.entry).toMatchObject({ tool_call_id: "call_ask_write", tool_name: "mcp__fs__write_file", effect: "write" });
    // The read-only tool (readOnlyHint) ran without asking; the write has not run.
    expect(resultsOf("fs-ask").call_ask_read).toContain("the fs server reads this");
    expect(existsSync(target)).toBe(false);
    const decided = await server.api("POST", `/api/conversations/${id}/agents/${waiting.agentId}/approvals`, { tool_call_id: "call_ask_write", decision: "approve" });
    expect(decided.status).toBe(200);
    // The filesystem server writes in place (open, then write): the file can exist before it holds the text.
    await until("the approved write ran", async () => (existsSync(target) && readFileSync(target, "utf8") !== "" ? true : null), 30_000);
    expect(readFileSync(target, "utf8")).toBe("written after approval");
    const approval = (await timeline(id)).find((r) => r.action === "approval");
    expect(approval?.envelope.payload).toMatchObject({ tool: "mcp__fs__write_file", effect: "write" });
  });

  it("over Streamable HTTP: expanded headers, an isError answer, a deadline, and list_changed seen at the next call", async () => {
    SCENARIOS.http = [
      () => [
        { id: "call_echo", name: "mcp__remote__echo", arguments: { text: "over http" } },
        { id: "call_fail", name: "mcp__remote__fail", arguments: {} },
        { id: "call_slow", name: "mcp__remote__slow", arguments: {} },
        { id: "call_leak", name: "mcp__remote__leak", arguments: {} },
        { id: "call_big", name: "mcp__remote__big", arguments: {} },
      ],
      () => [{ id: "call_add", name: "mcp__remote__add_tool", arguments: {} }],
      () => [{ id: "call_added", name: "mcp__remote__added_1", arguments: {} }],
      () => [{ id: "call_quiet", name: "mcp__remote__add_tool_quietly", arguments: {} }],
      () => [{ id: "call_quiet_1", name: "mcp__remote__quiet_1", arguments: {} }],
      // The tool skipped for its name (never offered), called by the name it would have had.
      () => [{ id: "call_long", name: `mcp__remote__${LONG_TOOL_NAME}`, arguments: {} }],
    ];
    const id = await run("http-role", "http");
    const results = resultsOf("http");
    expect(results.call_echo).toContain("echo: over http");
    expect(JSON.parse(results.call_fail!).error).toMatch(/mcp__remote__fail failed: the database is on fire/);
    expect(JSON.parse(results.call_slow!).error).toMatch(/timed out/);
    expect(results.call_leak).not.toContain(HTTP_TOKEN);
    expect(results.call_leak).toContain("[redacted]");
    // A long answer is capped like other tools' output, its head and tail kept.
    const big = JSON.parse(results.call_big!) as { result: string };
    expect(results.call_big!.length).toBeLessThanOrEqual(12_000);
    expect(big.result.startsWith("BEGIN")).toBe(true);
    expect(big.result.endsWith("END")).toBe(true);
    expect(big.result).toMatch(/…\[\d+ characters omitted\]…/);
    const reqs = requestsOf("http");
    expect(namesOf(reqs[1]!)).not.toContain("mcp__remote__added_1");
    expect(namesOf(reqs[2]!)).toContain("mcp__remote__added_1");
    expect(results.call_added).toContain("added_1 ran");
    // A tool not marked read-only may change the server's tools: they are listed again at the next
    // call, so even a change the server does not announce is seen.
    expect(namesOf(reqs[3]!)).not.toContain("mcp__remote__quiet_1");
    expect(namesOf(reqs[4]!)).toContain("mcp__remote__quiet_1");
    expect(results.call_quiet_1).toContain("quiet_1 ran");
    expect(remote.refused).toBe(0);
    // A tool whose model name would be too long is skipped with a notice, never renamed.
    expect(namesOf(reqs[0]!).some((n) => n.includes(LONG_TOOL_NAME.slice(0, 20)))).toBe(false);
    for (const n of namesOf(reqs[0]!)) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const snapshot = (await firstEvents(server, id)).find((e) => e.type === "snapshot")!;
    expect(snapshot.snapshot.notices).toEqual(expect.arrayContaining([expect.objectContaining({ code: "mcp_tool_skipped", params: { server: "remote", tool: LONG_TOOL_NAME } })]));
    // ...and calling it by that name is refused like any unknown tool: the server never runs it.
    expect(JSON.parse(results.call_long!).error).toMatch(/unknown tool mcp__remote__a_tool_whose_name/);
    expect(results.call_long).not.toContain("never offered");
    const records = await timeline(id);
    expect(records.find((r) => r.action === `mcp__remote__${LONG_TOOL_NAME}`)).toMatchObject({ status: "refused", envelope: { payload: { outcome: "unknown_tool" } } });
    expect(records.find((r) => r.action === "mcp__remote__slow")).toMatchObject({ status: "timeout" });
    expect(records.find((r) => r.action === "mcp__remote__fail")).toMatchObject({ status: "failed" });
    for (const r of records) expect(JSON.stringify(r)).not.toContain(HTTP_TOKEN);
  });

  it("a server that keeps failing to start backs off and says so", async () => {
    SCENARIOS.broken = [
      () => [
        { id: "call_1", name: "mcp__broken__anything", arguments: {} },
        { id: "call_2", name: "mcp__broken__anything", arguments: {} },
      ],
    ];
    await run("broken-role", "broken");
    const results = resultsOf("broken");
    expect(Object.values(results).join("\n")).toMatch(/backing off, next restart in \d+ s/);
    const status = await mcpStatus("broken");
    expect(status.crashes).toBeGreaterThanOrEqual(2);
    expect(status.last_error).toMatch(/boom on start|could not start|Connection closed/);
  });

  it("stops a conversation's servers on Stop, archive and delete, and idle ones after ASTRION_MCP_IDLE_MS", async () => {
    SCENARIOS.stop = [() => [{ id: "call_s", name: "mcp__everything__echo", arguments: { message: "s" } }]];
    const id = await run("ev-role", "stop");
    const pid = (await mcpStatus("everything")).processes.find((p) => p.conversation_id === id)?.pid;
    expect(pid).toBeGreaterThan(0);
    expect((await server.api("POST", `/api/conversations/${id}/stop`)).status).toBe(200);
    expect((await mcpStatus("everything")).processes.some((p) => p.conversation_id === id)).toBe(false);
    await until("the stopped server's process exits", () => !alive(pid!), 10_000);

    // Archived or deleted: its servers stop (even when its run was already let go).
    for (const [scenario, end] of [["archive", (c: string) => server.api("PATCH", `/api/conversations/${c}`, { status: "archived" })], ["delete", (c: string) => server.api("DELETE", `/api/conversations/${c}`)]] as const) {
      SCENARIOS[scenario] = [() => [{ id: `call_${scenario}`, name: "mcp__everything__echo", arguments: { message: scenario } }]];
      const conv = await run("ev-role", scenario);
      const p = (await mcpStatus("everything")).processes.find((x) => x.conversation_id === conv)?.pid;
      expect(p).toBeGreaterThan(0);
      expect((await end(conv)).status).toBe(200);
      expect((await mcpStatus("everything")).processes.some((x) => x.conversation_id === conv)).toBe(false);
      await until(`the ${scenario}d conversation's server exits`, () => !alive(p!), 10_000);
    }

    // Without Stop, a server nobody uses is stopped after ASTRION_MCP_IDLE_MS (4 s here).
    SCENARIOS.idle = [() => [{ id: "call_i", name: "mcp__everything__echo", arguments: { message: "i" } }]];
    const idleConv = await run("ev-role", "idle");
    const idlePid = (await mcpStatus("everything")).processes.find((p) => p.conversation_id === idleConv)?.pid;
    expect(idlePid).toBeGreaterThan(0);
    expect(alive(idlePid!)).toBe(true);
    await until("the idle server's process exits", () => !alive(idlePid!), 20_000);
    expect((await mcpStatus("everything")).processes.some((p) => p.conversation_id === idleConv)).toBe(false);
  });

  it("journals write calls before they run, read-only ones not (the crash itself: test/mcp-crash.test.ts)", async () => {
    const fsConv = requests.fs!;
    await server.stop();
    const journal = readFileSync(path.join(server.home, "conversations", fsConv, "actions.jsonl"), "utf8");
    expect(journal).toContain("call_write");
    expect(journal).not.toContain("call_read");
    // Saved at shutdown: the argv server's conversation files, the agent's messages.json among them.
    const argvDir = path.join(server.home, "conversations", requests.argv!);
    const saved = readFileSync(path.join(argvDir, "agents", requests.argvAgent!, "messages.json"), "utf8");
    expect(saved).toContain("--token=[redacted]");
    for (const f of readdirSync(argvDir, { recursive: true, withFileTypes: true }).filter((x) => x.isFile())) expect(readFileSync(path.join(f.parentPath, f.name), "utf8")).not.toContain(ARG_SECRET);
    expect(existsSync(path.join(server.home, "mcp.json"))).toBe(true);
  });
});

/**
 * An MCP write cut short by a crash: the server is SIGKILLed while an agent's call of a tool
 * without `readOnlyHint` is in flight; after the restart the call is reported to the model as
 * interrupted and is not sent to the MCP server again (it ran under the action journal). And
 * Stop ends a call in flight at once rather than at its deadline.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeToolCalls, fakeText, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { startMcpHttpServer, type McpHttpTestServer } from "./helpers/mcp-http";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

type Msg = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string } }>; tool_call_id?: string };

let fake: FakeOpenAI;
let remote: McpHttpTestServer;
let server: TestServer;
let home: string;
let env: Record<string, string>;

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  const tools = ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
  if (tools.includes("create_sub_agent")) {
    return messages.some((m) => m.tool_calls?.some((c) => c.function.name === "create_sub_agent")) ? fakeText("waiting") : fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "writer", task: "change it" } }]);
  }
  if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ id: "call_hang", name: "mcp__remote__hang_write", arguments: {} }]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "done" } }]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  remote = await startMcpHttpServer({ token: "tok-crash-test-1234", team: "t" });
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  writeFileSync(path.join(home, "agents", "writer.md"), "---\nname: writer\ndescription: Writes through MCP\nmcp_servers: [remote]\ntool_policy: { \"mcp__*\": allow }\n---\nYou write.\n");
  writeFileSync(path.join(home, "mcp.json"), JSON.stringify({ mcpServers: { remote: { type: "http", url: remote.url, headers: { Authorization: "Bearer tok-crash-test-1234", "X-Team": "t" } } } }));
  env = { FAKE_OPENAI_KEY: "sk-crash", ASTRION_LEADER_BATCH_MS: "0", ASTRION_MCP_CALL_TIMEOUT_MS: "60000" };
  server = await startServer({ home, env });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  await remote?.close();
});

describe("an MCP write cut short by a crash", () => {
  it("is reported as interrupted after the restart and never sent again", async () => {
    const project = tempDir("astrion-project-");
    const id = (await server.api("POST", "/api/conversations", { title: "crash", project_path: project })).json.conversation.id as string;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "go" });
    await until("the write reached the MCP server", () => remote.calls.hang_write === 1);
    const pid = (await server.api("GET", "/api/health")).json.pid as number;
    process.kill(-server.proc.pid!, "SIGKILL");
    await until("server gone", () => !alive(pid), 10_000);

    server = await startServer({ home, env });
    const detail = await until("the agent reported after the restart", async () => {
      const agentId = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents[0]?.metadata.agent_id as number | undefined;
      const d = agentId === undefined ? null : (await server.api("GET", `/api/conversations/${id}/agents/${agentId}`)).json;
      return d?.agent?.metadata.reported ? d : null;
    }, 60_000);
    const result = (detail.messages as Msg[]).find((m) => m.tool_call_id === "call_hang");
    expect(String(result?.content)).toMatch(/interrupted: .*mcp__remote__hang_write was running; it was not run again/);
    expect(remote.calls.hang_write).toBe(1);
  });

  it("Stop ends a call in flight at once (the deadline is a minute here) and the model is told", async () => {
    const project = tempDir("astrion-project-");
    const id = (await server.api("POST", "/api/conversations", { title: "stop", project_path: project })).json.conversation.id as string;
    await server.api("POST", `/api/conversations/${id}/messages`, { content: "go" });
    await until("the second write reached the MCP server", () => remote.calls.hang_write === 2);
    expect((await server.api("POST", `/api/conversations/${id}/stop`)).status).toBe(200);
    const agentId = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents[0].metadata.agent_id as number;
    const detail = (await server.api("GET", `/api/conversations/${id}/agents/${agentId}`)).json;
    const result = (detail.messages as Msg[]).find((m) => m.tool_call_id === "call_hang");
    expect(String(result?.content)).toMatch(/hang_write was stopped before it answered/);
    expect(detail.agent.metadata.status).not.toBe("running");
  });
});

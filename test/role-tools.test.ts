/**
 * A role's `tools:` through the real runtime: the tools list the model receives for a sub-agent
 * of `tools: Read, Grep` has no `write_file` (even with `permissions: [read, write]`), with
 * `tools: Read, Write` it has, and a role without `tools:` keeps what its permissions give. A
 * model that calls a file tool its role was not offered is refused and nothing is written.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const ROLES: Record<string, string> = {
  "reader-role": "tools: Read, Grep\npermissions: [read, write]",
  "writer-role": "tools: Read, Write\npermissions: [read]",
  "bash-role": "tools:\n  - Bash\n  - Edit",
  "plain-role": "permissions: [read]",
  "narrow-role": "tools: read_file",
};

let fake: FakeOpenAI;
let server: TestServer;
let project: string;

type Msg = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string } }> };

const roleOf = (body: FakeRequestBody): string | undefined => {
  const system = String(((body.messages ?? []) as Msg[]).find((m) => m.role === "system")?.content ?? "");
  return Object.keys(ROLES).find((r) => system.includes(`role ${r})`));
};
const toolNames = (body: FakeRequestBody): string[] => ((body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  if (toolNames(body).includes("create_sub_agent")) {
    const created = messages.some((m) => m.tool_calls?.some((c) => c.function.name === "create_sub_agent"));
    return created ? fakeText("waiting") : fakeToolCalls(Object.keys(ROLES).map((role_id) => ({ name: "create_sub_agent", arguments: { role_id, task: "Write a file." } })));
  }
  const role = roleOf(body) ?? "unknown";
  // Every agent tries to write, whatever it was offered (the narrow one to list, which its read
  // scope would allow but its tools: do not); then it reports.
  if (!messages.some((m) => m.role === "tool")) {
    return fakeToolCalls([role === "narrow-role" ? { name: "list_files", arguments: {} } : { name: "write_file", arguments: { path: `${role}.txt`, content: role } }]);
  }
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "done" } }]);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url);
  mkdirSync(path.join(home, "agents"), { recursive: true });
  // Writes are allowed without asking: this file tests which tools a role gets, not approval.
  for (const [id, extra] of Object.entries(ROLES)) writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: ${id}\ndescription: A role with ${id}\n${extra}\ntool_policy: { write_file: allow }\n---\nYou work.\n`);
  project = tempDir("astrion-project-");
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-tools", ASTRION_LEADER_BATCH_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("a role's tools:", () => {
  it("decides exactly the file tools its sub-agents are offered and may call", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "tools", project_path: project });
    const id = created.json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" })).status).toBe(202);
    await until("every agent reported", async () => {
      const list = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { status: string } }>;
      return list.length === Object.keys(ROLES).length && list.every((a) => a.metadata.status !== "running") ? true : null;
    });
    const offered: Record<string, string[]> = {};
    for (const r of fake.requests) {
      const role = r.body && roleOf(r.body);
      if (role && r.body) offered[role] = toolNames(r.body);
    }
    const team = ["report_to_leader", "ask_master", "send_message"];
    const reads = ["list_files", "read_file", "search_files"];
    expect(offered["reader-role"]!.filter((n) => !n.endsWith("_shared_context"))).toEqual([...team, ...reads, "recall_memory"]);
    expect(offered["reader-role"]).not.toContain("write_file");
    expect(offered["writer-role"]).toEqual(expect.arrayContaining([...reads, "write_file"]));
    // Bash offers run_command; Edit offers write_file and nothing to read; no other role runs commands.
    expect(offered["bash-role"]).toContain("run_command");
    for (const role of ["reader-role", "writer-role", "plain-role", "narrow-role"]) expect(offered[role]).not.toContain("run_command");
    expect(offered["bash-role"]).toContain("write_file");
    expect(offered["bash-role"]).not.toContain("read_file");
    expect(offered["bash-role"]).toEqual(expect.arrayContaining(team));
    // No tools: the permissions decide, as before.
    expect(offered["plain-role"]).toEqual(expect.arrayContaining(reads));
    expect(offered["plain-role"]).not.toContain("write_file");

    // Each agent's system prompt names the file tools it has.
    const systemOf = (role: string) => {
      const body = fake.requests.find((r) => r.body && roleOf(r.body) === role)!.body!;
      return String(((body.messages ?? []) as Msg[]).find((m) => m.role === "system")?.content ?? "");
    };
    expect(systemOf("reader-role")).toMatch(/Use list_files, read_file, search_files on it \(paths are relative to it\); you may not write files\./);
    expect(systemOf("writer-role")).toMatch(/, and write_file to change it\./);
    expect(systemOf("bash-role")).toMatch(/Use write_file to change it \(paths are relative to it\); you have no tool that reads it\./);

    // The calls: only the roles offered write_file wrote.
    expect(readFileSync(path.join(project, "writer-role.txt"), "utf8")).toBe("writer-role");
    expect(readFileSync(path.join(project, "bash-role.txt"), "utf8")).toBe("bash-role");
    expect(existsSync(path.join(project, "reader-role.txt"))).toBe(false);
    expect(existsSync(path.join(project, "plain-role.txt"))).toBe(false);
    const toolResults = (role: string) =>
      fake.requests
        .filter((r) => r.body && roleOf(r.body) === role)
        .flatMap((r) => ((r.body!.messages ?? []) as Msg[]).filter((m) => m.role === "tool").map((m) => String(m.content)))
        .join("\n");
    // The reader's token carries no write scope (its tools: grant none), so the token refuses.
    expect(toolResults("reader-role")).toMatch(/permission denied: write_file needs project:write/);
    // The narrow role may read (its token allows listing) but was offered read_file alone.
    expect(offered["narrow-role"]!.filter((n) => reads.includes(n) || n === "write_file")).toEqual(["read_file"]);
    expect(toolResults("narrow-role")).toMatch(/permission denied: your role's tools do not include list_files/);
  });
});

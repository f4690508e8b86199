/**
 * `/api/health` lists every broken file the server has met, not only the route that read it: a
 * conversation's messages.json found broken when it is opened or resumed, and models.json; and
 * drops a file once it loads again. Against the real running server, across a restart.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, tempDir, type TestServer } from "./helpers/server";

let server: TestServer | undefined;

afterAll(async () => {
  await server?.stop();
});

async function problems(s: TestServer): Promise<Array<{ file: string; message: string }>> {
  const res = await s.api("GET", "/api/health");
  expect(res.status).toBe(200);
  return res.json.problems;
}

describe("broken files reach /api/health", () => {
  it("lists every role file that does not load, with its line and a plain-words hint, and drops it once fixed", async () => {
    const home = tempDir("astrion-home-");
    const roles = path.join(home, "agents");
    mkdirSync(roles, { recursive: true });
    for (let i = 0; i < 10; i++) writeFileSync(path.join(roles, `broken-${i}.md`), `---\nname: Broken ${i}\ndescription: Use this agent when: it breaks ${i}\n---\nPrompt.\n`);
    writeFileSync(path.join(roles, "no-frontmatter.md"), "Just a prompt, no frontmatter.\n");
    const s = await startServer({ home });
    try {
      const listed = (await problems(s)).filter((p) => p.file.startsWith("agents/"));
      expect(listed.map((p) => p.file)).toEqual([...Array.from({ length: 10 }, (_, i) => `agents/broken-${i}.md`), "agents/no-frontmatter.md"]);
      for (const p of listed.slice(0, 10)) expect(p.message).toMatch(/^line 3: YAML error: .* — description contains ": " — put the value in quotes$/);
      writeFileSync(path.join(roles, "broken-0.md"), '---\nname: Broken 0\ndescription: "Use this agent when: it breaks 0"\n---\nPrompt.\n');
      await expect.poll(async () => (await problems(s)).some((p) => p.file === "agents/broken-0.md"), { timeout: 10_000 }).toBe(false);
    } finally {
      await s.stop();
    }
  });

  it("lists a broken messages.json once it is opened, a broken models.json at once, both again after a restart, and neither once fixed", async () => {
    const home = tempDir("astrion-home-");
    server = await startServer({ home });
    const created = await server.api("POST", "/api/conversations", { title: "breaks", project_path: tempDir("astrion-project-") });
    const id = created.json.conversation.id as string;
    const messagesFile = path.join(home, "conversations", id, "messages.json");
    const modelsFile = path.join(home, "models.json");
    const goodMessages = readFileSync(messagesFile, "utf8");
    const goodModels = readFileSync(modelsFile, "utf8");
    expect(await problems(server)).toEqual([]);

    writeFileSync(messagesFile, '{"id": "broken", "messages": [');
    writeFileSync(modelsFile, '{"default": 42}');
    // models.json is checked on every health call; a conversation's file once something reads it.
    expect((await problems(server)).map((p) => p.file)).toEqual(["models.json"]);
    const opened = await server.api("GET", `/api/conversations/${id}/messages`);
    expect(opened.status).toBe(500);
    expect(opened.json.error.code).toBe("corrupt_file");
    const listed = await problems(server);
    expect(listed.map((p) => p.file)).toEqual([`conversations/${id}/messages.json`, "models.json"]);
    expect(listed[0]!.message).toMatch(/JSON/i);
    expect(listed[1]!.message).toMatch(/schema|default/i);

    // After a restart the resume at boot meets the broken file: health lists it with no request.
    await server.stop();
    server = await startServer({ home });
    expect((await problems(server)).map((p) => p.file)).toEqual([`conversations/${id}/messages.json`, "models.json"]);

    // Fixed files drop out: messages.json the next time it loads, models.json at once.
    writeFileSync(messagesFile, goodMessages);
    writeFileSync(modelsFile, goodModels);
    expect((await server.api("GET", `/api/conversations/${id}/messages`)).status).toBe(200);
    expect(await problems(server)).toEqual([]);
  });

  it("lists a broken sub-agent file met while listing the team", async () => {
    const home = server!.home;
    const created = await server!.api("POST", "/api/conversations", { title: "agent breaks", project_path: tempDir("astrion-project-") });
    const id = created.json.conversation.id as string;
    const agentDir = path.join(home, "conversations", id, "agents", "9999");
    mkdirSync(agentDir, { recursive: true });
    writeFileSync(path.join(agentDir, "metadata.json"), "not json");
    const agents = await server!.api("GET", `/api/conversations/${id}/agents`);
    expect(agents.status).toBe(200);
    expect((await problems(server!)).map((p) => p.file)).toContain(`conversations/${id}/agents/9999/metadata.json`);
  });
});

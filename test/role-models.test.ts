/**
 * A role's `model` through the real server: a key of models.json, Claude Code's names through the
 * registry's aliases (`sonnet` mapped by the person, `opus` to the default model, `inherit` to the
 * conversation's), and a name neither knows, which falls back to the conversation's model with a
 * notice that says so. `GET /api/models` lists the aliases the role editor resolves with.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { snapshotOf, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const ROLES: Record<string, string> = { "sonnet-role": "sonnet", "opus-role": "opus", "inherit-role": "inherit", "keyed-role": "fast", "mystery-role": "gpt-9000" };

let fake: FakeOpenAI;
let server: TestServer;

type Msg = { role: string; tool_calls?: Array<{ function: { name: string } }> };

function handler(body: FakeRequestBody): Script {
  const created = ((body.messages ?? []) as Msg[]).some((m) => m.tool_calls?.some((c) => c.function.name === "create_sub_agent"));
  if (!JSON.stringify(body.tools ?? []).includes("create_sub_agent")) return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "done" } }]);
  if (!created) return fakeToolCalls(Object.keys(ROLES).map((role_id) => ({ name: "create_sub_agent", arguments: { role_id, task: "Report." } })));
  return fakeText("waiting");
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-home-");
  const endpoint = (model: string) => ({ base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model });
  writeFileSync(path.join(home, "models.json"), JSON.stringify({ default: "main", models: { main: endpoint("main-model"), fast: endpoint("fast-model"), strong: endpoint("strong-model") }, aliases: { sonnet: "strong" } }));
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const [id, model] of Object.entries(ROLES)) writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: ${id}\ndescription: A role whose model is ${model}\nmodel: ${model}\n---\nYou report.\n`);
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-models", ASTRION_LEADER_BATCH_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("a role's model", () => {
  it("resolves keys and aliases, and falls back with a notice for a name models.json does not know", async () => {
    const models = await server.api("GET", "/api/models");
    expect(models.json.aliases).toEqual({ inherit: "$conversation", sonnet: "strong", opus: "$default", haiku: "$default" });

    const created = await server.api("POST", "/api/conversations", { title: "models", project_path: tempDir("astrion-project-"), model_key: "fast" });
    const id = created.json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Go" })).status).toBe(202);
    const agents = await until("five agents", async () => {
      const list = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { role_id: string; model_key: string } }>;
      return list.length === 5 ? list.map((a) => a.metadata) : null;
    });
    const byRole = Object.fromEntries(agents.map((a) => [a.role_id, a.model_key]));
    // sonnet: the person's alias; opus: the default model; inherit: the conversation's; fast: a key; gpt-9000: unknown → the conversation's
    expect(byRole).toEqual({ "sonnet-role": "strong", "opus-role": "main", "inherit-role": "fast", "keyed-role": "fast", "mystery-role": "fast" });
    const notices = (await snapshotOf(server, id)).notices as Array<{ code: string; params?: Record<string, unknown>; message: string }>;
    const fallbacks = notices.filter((n) => n.code === "model_fallback");
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]!.params).toMatchObject({ role: "mystery-role", model: "gpt-9000", fallback: "fast" });
    expect(fallbacks[0]!.message).toMatch(/neither a model nor an alias/);
  });
});

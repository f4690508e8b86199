/**
 * The built server on PostgreSQL + Redis (issue 31, "Configuration"): `ASTRION_DATABASE_URL` and
 * `ASTRION_REDIS_URL` switch it from the data folder, on a throwaway cluster and redis-server the
 * test starts. An offline team runs a goal to its summary, the conversation is in PostgreSQL and
 * not in the data folder, a restart finds it there, and one variable without the other is refused
 * in one line before anything is opened.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgClusterForFile } from "@/test/support/pg-cluster";
import { startRedis, type TestRedis } from "@/test/support/redis-server";
import { runToExit, startServer, tempDir, type TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const pg = pgClusterForFile();
let redis: TestRedis;
let databaseUrl: string;

beforeAll(async () => {
  redis = await startRedis();
  databaseUrl = await pg.cluster.createDatabase();
});

afterAll(async () => {
  await redis?.dispose();
});

type Msg = { role: string; content?: unknown };

/** Rows of a query on the test database. */
async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("the server on PostgreSQL + Redis", () => {
  let server: TestServer | null = null;
  const home = tempDir("astrion-scaled-home-");
  const env = () => ({ ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url });

  afterAll(async () => {
    await server?.stop();
  });

  it("runs an offline team to its summary, keeps the conversation in PostgreSQL, and finds it again after a restart", async () => {
    server = await startServer({ home, env: env() });
    const project = tempDir("astrion-scaled-project-");
    writeFileSync(path.join(project, "README.md"), "# Scaled\n\nA small project.\n");
    writeFileSync(path.join(project, "index.js"), "export const answer = 42;\n");
    const created = await server.api("POST", "/api/conversations", { title: "On PostgreSQL", project_path: project, model_key: "offline" });
    expect(created.status).toBe(201);
    const id: string = created.json.conversation.id;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Summarize this project" })).status).toBe(202);
    const dump = async (error: unknown): Promise<never> => {
      const messages = (await server!.api("GET", `/api/conversations/${id}/messages`)).json;
      throw new Error(`${(error as Error).message}\n--- messages\n${JSON.stringify(messages).slice(0, 3000)}\n--- server\n${server!.output().slice(-6000)}`);
    };
    // The offline researcher asks the person first (the goal leaves room): answered through the API.
    const question = await until(
      "the researcher's question",
      async () => {
        const agents = (await server!.api("GET", `/api/conversations/${id}/agents`)).json.agents as { metadata: { agent_id: number; pending_tool_calls?: { tool_name: string; question_id?: string }[] } }[];
        for (const a of agents) {
          const q = a.metadata.pending_tool_calls?.find((p) => p.tool_name === "ask_master");
          if (q?.question_id) return { agent: a.metadata.agent_id, id: q.question_id };
        }
        return null;
      },
      120_000,
    ).catch(dump);
    const answered = await server.api("POST", `/api/conversations/${id}/agents/${question.agent}/answers`, { question_id: question.id, answer: "How it works today." });
    expect(answered.status, JSON.stringify(answered.json)).toBe(200);
    const summary = await until(
      "the leader's summary",
      async () => {
        const r = await server!.api("GET", `/api/conversations/${id}/messages`);
        const last = (r.json.messages as Msg[]).at(-1);
        return last?.role === "assistant" && /Team summary/.test(String(last.content)) ? (r.json.messages as Msg[]) : null;
      },
      120_000,
    ).catch(dump);
    expect(summary.length).toBeGreaterThan(1);

    // The truth is in PostgreSQL; the data folder holds no conversation folder.
    const [conversation] = await rows<{ id: string }>("SELECT id FROM conversations WHERE id = $1", [id]);
    expect(conversation?.id).toBe(id);
    const conversationsDir = path.join(home, "conversations");
    expect(existsSync(conversationsDir) ? readdirSync(conversationsDir).filter((f) => f.startsWith("conv_")) : []).toEqual([]);
    const health = await server.api("GET", "/api/health");
    expect(health.status).toBe(200);

    await server.stop();
    server = await startServer({ home, env: env() });
    const again = await server.api("GET", `/api/conversations/${id}/messages`);
    expect(again.status).toBe(200);
    expect(again.json.messages).toEqual(summary);
    const list = await server.api("GET", "/api/conversations?status=all");
    expect((list.json.items as { id: string }[]).map((i) => i.id)).toContain(id);
  }, 240_000);

  it("refuses one variable without the other, in one line, before opening anything", async () => {
    for (const [set, missing] of [
      [{ ASTRION_DATABASE_URL: "postgresql://127.0.0.1:1/x" }, "ASTRION_REDIS_URL"],
      [{ ASTRION_REDIS_URL: "redis://127.0.0.1:1" }, "ASTRION_DATABASE_URL"],
    ] as const) {
      const r = await runToExit({ ASTRION_HOME: tempDir("astrion-scaled-bad-"), PORT: "0", ...set }, 120_000);
      expect(r.code).not.toBe(0);
      expect(r.output).toContain(`${missing} is not: set both (PostgreSQL + Redis) or neither (the data folder).`);
    }
  }, 300_000);
});

/**
 * Routing with a large imported role library through the real server (issue 9): the Claude Code
 * role collection in shared/corpus/roles is the whole `agents/` folder, none of its files declares
 * `capabilities`. The role list shows the derived tags; a goal's routing candidates (timeline
 * `intent_routing` event, the leader's candidate note) come from derived tags and BM25; the
 * leader's catalog marks derived tags; the offline leader creates a role routing ranks first.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
const corpusFiles = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith(".md") && f !== "SOURCE.md") : [];

type Candidate = { role_id: string; score: number; matched: string[]; derived: boolean; bm25: number };
type Msg = { role: string; content?: string | null };

let fake: FakeOpenAI;
let server: TestServer;
let project: string;

const system = (b: FakeRequestBody) => String((b.messages as Msg[] | undefined)?.[0]?.content ?? "");
const catalogOf = (b: FakeRequestBody) =>
  String((b.tools as Array<{ function: { name: string; description: string } }>).find((t) => t.function.name === "create_sub_agent")?.function.description ?? "");

async function conversation(title: string, model_key?: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path: project, ...(model_key ? { model_key } : {}) });
  expect(res.status).toBe(201);
  return res.json.conversation.id;
}

async function routed(id: string, goal: string): Promise<{ candidates: Candidate[]; labels: string[]; leader: FakeRequestBody }> {
  const before = fake.requests.length;
  expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: goal })).status).toBe(202);
  const records = await until("the intent_routing event", async () => {
    const recs = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string; envelope: { payload: Record<string, unknown> } }>;
    return recs.find((r) => r.action === "intent_routing") ?? null;
  });
  const leader = await until("the leader's model call", () => fake.requests.slice(before).find((r) => r.body?.tools)?.body ?? null);
  return { candidates: records.envelope.payload.candidates as Candidate[], labels: records.envelope.payload.labels as string[], leader };
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: () => fakeText("Noted.") });
  const home = tempDir("astrion-home-");
  project = tempDir("astrion-project-");
  writeFileSync(path.join(project, "README.md"), "# Cluster config\n");
  mkdirSync(path.join(project, "k8s"));
  writeFileSync(path.join(project, "k8s", "deployment.yaml"), "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          securityContext:\n            privileged: true\n");
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const f of corpusFiles) copyFileSync(path.join(CORPUS, f), path.join(home, "agents", f));
  writeFakeModels(home, fake.url);
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-route", ASTRION_LEADER_BATCH_MS: "20", ASTRION_OFFLINE_DELAY_MS: "0" } });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe.skipIf(corpusFiles.length === 0)("routing over the imported role library", () => {
  it("GET /api/roles lists derived tags for the roles that declare none", async () => {
    const res = await server.api("GET", "/api/roles");
    expect(res.status).toBe(200);
    const roles = (res.json.roles as Array<{ kind: string; id: string; capabilities?: string[]; derived_capabilities?: string[] }>).filter((r) => r.kind === "role");
    expect(roles.length).toBeGreaterThanOrEqual(150);
    for (const r of roles) {
      expect(r.capabilities).toEqual([]);
      expect(Array.isArray(r.derived_capabilities)).toBe(true);
    }
    expect(roles.find((r) => r.id === "kubernetes-operations__kubernetes-architect")?.derived_capabilities).toEqual(expect.arrayContaining(["kubernetes", "security-review"]));
    expect(roles.find((r) => r.id === "sql-pro")?.derived_capabilities).toEqual(expect.arrayContaining(["sql", "database"]));
  });

  it("a Kubernetes security audit routes to a Kubernetes or security role in the first three, marked derived", async () => {
    const id = await conversation("k8s audit");
    const { candidates, labels, leader } = await routed(id, "audit the Kubernetes manifests for security issues");
    expect(labels).toEqual(expect.arrayContaining(["kubernetes", "security-review"]));
    expect(candidates.slice(0, 3).some((c) => /kubernetes|security/.test(c.role_id))).toBe(true);
    expect(candidates[0]).toMatchObject({ derived: true, matched: expect.arrayContaining(["kubernetes"]) });
    expect(candidates[0]!.bm25).toBeGreaterThan(0);
    // The leader is told the same candidates, derived tags marked, and its catalog marks them too.
    expect(system(leader)).toContain(`Candidate roles for this request: ${candidates[0]!.role_id} (`);
    expect(system(leader)).toMatch(/kubernetes[^)]*; derived tags\)/);
    expect(catalogOf(leader)).toMatch(/- kubernetes-operations__kubernetes-architect: .* \(derived capabilities: [^)]*kubernetes/);
  });

  it("a role no vocabulary tag fits is still a candidate through BM25", async () => {
    const id = await conversation("event sourcing");
    const { candidates, labels, leader } = await routed(id, "model the order lifecycle with event sourcing and CQRS");
    expect(labels).toEqual([]);
    expect(candidates[0]).toMatchObject({ role_id: "event-sourcing-architect", matched: [], bm25: 1 });
    expect(system(leader)).toContain("Candidate roles for this request: event-sourcing-architect (text match)");
  });

  it("ranks only the roles the conversation is authorized for", async () => {
    const id = await conversation("restricted");
    const allowed = ["sql-pro", "rust-pro", "database-admin"];
    expect((await server.api("PATCH", `/api/conversations/${id}`, { allowed_roles: allowed })).status).toBe(200);
    const { candidates } = await routed(id, "audit the Kubernetes manifests and speed up slow SQL");
    expect(candidates.length).toBeGreaterThan(0);
    for (const c of candidates) expect(allowed).toContain(c.role_id);
    expect(candidates[0]!.role_id).toBe("sql-pro");
  });

  it("the offline leader creates a role routing ranks first for the goal", async () => {
    const id = await conversation("offline k8s", "offline");
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "audit the Kubernetes manifests for security issues" })).status).toBe(202);
    const agents = await until("the offline leader's first agent", async () => {
      const list = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { role_id: string } }>;
      return list.length ? list : null;
    }, 60_000);
    expect(agents[0]!.metadata.role_id).toMatch(/kubernetes|security/);
    await server.api("POST", `/api/conversations/${id}/stop`);
  });
});

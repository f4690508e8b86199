/**
 * Governance (issue 4) across real modules: the capability registry built from real role files
 * (the shipped `agents/` folder plus a new file dropped in), intent routing through the real
 * OpenAI client against the fake endpoint, and per-agent tokens. The API-level tests (429 with
 * Retry-After, refusals in the timeline) are added when the runtime and routes are wired.
 */
import { copyFileSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeError, fakeText, startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { REPO_ROOT, tempDir } from "./helpers/server";
import { until } from "./helpers/wait";
import { RoleLibrary } from "@/lib/roles";
import { newRoleLibrary } from "@/test/helpers/role-library";
import { createOpenAIModel } from "@/lib/models/client";
import { AgentTokens, authorizedRoles, buildRegistry, candidateNote, classifyIntent, classifyIntentWithModel, isAuthorized } from "@/lib/governance";

let rolesDir: string;
let library: RoleLibrary;

beforeAll(() => {
  rolesDir = tempDir("astrion-governance-roles-");
  for (const f of readdirSync(path.join(REPO_ROOT, "agents")).filter((f) => f.endsWith(".md"))) {
    copyFileSync(path.join(REPO_ROOT, "agents", f), path.join(rolesDir, f));
  }
  library = newRoleLibrary(rolesDir);
});

describe("capability routing over the shipped role files", () => {
  it("routes English and Chinese requests to the roles whose tags fit", async () => {
    const registry = buildRegistry(await library.list());
    expect(classifyIntent("Review this TypeScript diff", registry).candidates[0]?.role_id).toBe("code-reviewer");
    expect(classifyIntent("给这个模块补充单元测试", registry).candidates[0]?.role_id).toBe("test-engineer");
    expect(classifyIntent("调研一下可选方案并对比", registry).candidates[0]?.role_id).toBe("researcher");
    expect(classifyIntent("把页面配色改成深色", registry).candidates[0]?.role_id).toBe("ui-operator");
    expect(candidateNote(classifyIntent("update the README docs", registry))).toMatch(/^Candidate roles for this request: technical-writer \(/);
  });

  it("makes a new role file a candidate without any code change, and refuses an unregistered one", async () => {
    const before = buildRegistry(await library.list());
    const ask = "审计 Terraform 配置里的 IAM 权限";
    expect(classifyIntent(ask, before).candidates.map((c) => c.role_id)).not.toContain("cloud-auditor");
    expect(isAuthorized("cloud-auditor", before.roles)).toBe(false);

    writeFileSync(
      path.join(rolesDir, "cloud-auditor.md"),
      "---\nname: Cloud Auditor\ndescription: Audits infrastructure-as-code\ncapabilities: terraform|iam|审计\npermissions: [read]\n---\nYou audit cloud configuration.\n",
    );
    // The library holds the role folder in memory and drops it when the folder's watch reports a change.
    const after = buildRegistry(await until("the new role file is seen", async () => {
      const list = await library.list();
      return list.some((r) => r.id === "cloud-auditor") ? list : null;
    }));
    expect(classifyIntent(ask, after).candidates[0]).toMatchObject({ role_id: "cloud-auditor", matched: ["terraform", "iam", "审计"] });
    expect(isAuthorized("cloud-auditor", after.roles)).toBe(true);
    expect(isAuthorized("cloud-auditor", after.roles, ["researcher"])).toBe(false);
    expect(authorizedRoles(after.roles, ["cloud-auditor", "not-a-role"]).map((r) => r.id)).toEqual(["cloud-auditor"]);
  });
});

describe("intent classification by a small model (real client, fake endpoint)", () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
  });
  afterAll(async () => {
    await fake.close();
  });

  function model() {
    return createOpenAIModel("mini", { provider: "openai-compatible", base_url: fake.url, model: "mini", thinking_style: "none", max_concurrency: 2 }, { maxRetries: 0, env: {} });
  }

  it("uses the model's labels when it answers valid JSON", async () => {
    fake.enqueue(fakeText('{"labels": ["testing", "e2e"]}'));
    const r = await classifyIntentWithModel("make sure the login flow keeps working", buildRegistry(await library.list()), model());
    expect(r.source).toBe("model");
    expect(r.labels).toEqual(["e2e", "testing"]);
    expect(r.candidates[0]?.role_id).toBe("test-engineer");
    const sent = fake.requests.at(-1)?.body;
    expect(JSON.stringify(sent?.messages)).toContain("code-review");
  });

  it("falls back to deterministic matching when the endpoint fails or answers nonsense", async () => {
    const registry = buildRegistry(await library.list());
    fake.enqueue(fakeError(500));
    const failed = await classifyIntentWithModel("review the python code", registry, model());
    expect(failed.source).toBe("deterministic");
    expect(failed.candidates[0]?.role_id).toBe("code-reviewer");
    fake.enqueue(fakeText("Sure! I would pick the reviewer."));
    expect((await classifyIntentWithModel("review the python code", registry, model())).source).toBe("deterministic");
  });
});

describe("least privilege", () => {


  it("a read-only role cannot write, a token works only in its conversation, and ending the agent revokes it", async () => {
    const project = tempDir("astrion-governance-project-");
    const list = await library.list();
    const reviewer = list.find((r) => r.id === "code-reviewer");
    const engineer = list.find((r) => r.id === "full-stack-engineer");
    if (reviewer?.kind !== "role" || engineer?.kind !== "role") throw new Error("shipped roles missing");

    const tokens = new AgentTokens();
    const r = tokens.issue({ conversation_id: "conv_a", agent_id: 1, role_id: reviewer.id, permissions: reviewer.permissions, project_path: project });
    const w = tokens.issue({ conversation_id: "conv_a", agent_id: 2, role_id: engineer.id, permissions: engineer.permissions, project_path: project });
    expect(tokens.check(r, { conversation_id: "conv_a", tool: "write_file", scope: "project:write", confined: true, args: { path: "x.ts" } })).toMatchObject({ ok: false, code: "missing_scope" });
    expect(tokens.check(w, { conversation_id: "conv_a", tool: "write_file", scope: "project:write", confined: true, args: { path: "x.ts" } }).ok).toBe(true);
    expect(tokens.check(w, { conversation_id: "conv_a", tool: "write_file", scope: "project:write", confined: true, args: { path: "../x" } })).toMatchObject({ ok: false, code: "outside_project" });
    expect(tokens.check(w, { conversation_id: "conv_b", tool: "read_file", scope: "project:read", confined: true, args: { path: "x.ts" } })).toMatchObject({ ok: false, code: "wrong_conversation" });
    tokens.revoke("conv_a", 2);
    expect(tokens.check(w, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true, args: { path: "x.ts" } })).toMatchObject({ ok: false, code: "revoked" });
    expect(tokens.check(r, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true, args: { path: "x.ts" } }).ok).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { ModelCallError, type ChatModel, type ChatRequest, type ChatResult } from "@/lib/models/types";
import {
  allowListFromMetadata,
  BM25_WEIGHT,
  DERIVED_TAG_WEIGHT,
  authorizedRoles,
  candidateNote,
  classifyIntent,
  classifyIntentWithModel,
  INTENT_READ_CHARS,
  isAuthorized,
  roleRefusal,
} from "./intent";
import { buildRegistry, restrictRegistry } from "./registry";
import { roleEntry, SHIPPED_ROLES } from "@/test/helpers/role-entries";

const registry = buildRegistry(SHIPPED_ROLES);
const ids = (text: string) => classifyIntent(text, registry).candidates.map((c) => c.role_id);

describe("classifyIntent (deterministic)", () => {
  it("picks the roles whose tags fit an English request, best first", () => {
    const r = classifyIntent("Please review this Python diff for security problems", registry);
    expect(r.source).toBe("deterministic");
    expect(r.labels).toEqual(expect.arrayContaining(["code-review", "python", "security-review", "diff-analysis"]));
    expect(r.candidates[0]).toMatchObject({ role_id: "code-reviewer" });
    expect(r.candidates[0]?.matched).toEqual(expect.arrayContaining(["code-review", "diff-analysis", "security-review", "python"]));
    expect(r.candidates[0]!.score).toBeGreaterThan(r.candidates[1]?.score ?? 0);
  });

  it("matches multi-word tags and stems", () => {
    expect(ids("write unit tests and an e2e check with playwright")[0]).toBe("test-engineer");
    expect(ids("update the changelog and the README")[0]).toBe("technical-writer");
    expect(ids("refactor the backend database layer")[0]).toBe("full-stack-engineer");
  });

  it("picks the roles whose tags fit a Chinese request", () => {
    expect(ids("请帮我审查这段代码")[0]).toBe("code-reviewer");
    expect(ids("给登录页面换一个配色")[0]).toBe("ui-operator");
    expect(ids("补充单元测试")[0]).toBe("test-engineer");
    const docs = classifyIntent("调研一下向量数据库，然后写文档", registry);
    expect(docs.labels).toEqual(expect.arrayContaining(["research", "documentation"]));
    expect(docs.candidates[0]?.role_id).toBe("researcher");
    expect(docs.candidates.map((c) => c.role_id)).toContain("technical-writer");
  });

  it("mixes languages", () => {
    const r = classifyIntent("前端 UI 太丑了, make it accessible (a11y)", registry);
    expect(r.candidates[0]?.role_id).toBe("ui-operator");
    expect(r.labels).toEqual(expect.arrayContaining(["ui-design", "frontend", "accessibility"]));
  });

  it("returns no candidates when nothing fits, and the note is empty", () => {
    const r = classifyIntent("hello there, how are you?", registry);
    expect(r.candidates).toEqual([]);
    expect(candidateNote(r)).toBe("");
  });

  it("does not treat a generic word as a partial tag match", () => {
    expect(ids("write some code")).toEqual([]);
  });

  it("makes a new role (just data) a candidate with no code change", () => {
    const withNew = buildRegistry([...SHIPPED_ROLES, roleEntry("rust-auditor", ["rust", "memory-safety", "unsafe-code"])]);
    const r = classifyIntent("check the Rust crate for memory safety issues", withNew);
    expect(r.candidates[0]).toMatchObject({ role_id: "rust-auditor", matched: ["rust", "memory-safety"] });
    expect(classifyIntent("check the Rust crate for memory safety issues", registry).candidates.map((c) => c.role_id)).not.toContain("rust-auditor");
    const zh = buildRegistry([...SHIPPED_ROLES, roleEntry("translator", ["翻译", "translation"])]);
    expect(classifyIntent("把这段话翻译成英文", zh).candidates[0]?.role_id).toBe("translator");
  });

  it("ranks DEGRADED roles after healthy ones and says so in the note", () => {
    const reg = buildRegistry(SHIPPED_ROLES, { agents: [{ role_id: "code-reviewer", status: "running", degraded: true }] });
    const r = classifyIntent("review the tests", reg);
    expect(r.candidates.at(-1)).toMatchObject({ role_id: "code-reviewer", state: "DEGRADED" });
    expect(candidateNote(r)).toMatch(/; code-reviewer \(code-review, testing[^)]*\) \[DEGRADED\]\./);
  });

  it("limits the number of candidates", () => {
    expect(classifyIntent("typescript python frontend testing documentation research", registry, { limit: 2 }).candidates).toHaveLength(2);
  });
});

describe("classifyIntent with derived tags and BM25 (issue 9)", () => {
  const untagged = (id: string, name: string, description: string) => ({ ...roleEntry(id, []), name, description });

  it("routes to a role that declares no capabilities through the tags derived from its description", () => {
    const reg = buildRegistry([...SHIPPED_ROLES, untagged("k8s-warden", "K8s Warden", "Runs Kubernetes clusters with Helm")]);
    expect(reg.byId.get("k8s-warden")).toMatchObject({ capabilities: ["kubernetes"], capabilities_source: "derived" });
    const r = classifyIntent("our helm charts break the cluster", reg);
    expect(r.labels).toContain("kubernetes");
    expect(r.candidates[0]).toMatchObject({ role_id: "k8s-warden", matched: ["kubernetes"], derived: true });
    expect(candidateNote(r)).toContain("k8s-warden (kubernetes; derived tags)");
  });

  it("finds by BM25 a role none of whose tags fits the request", () => {
    const reg = buildRegistry([...SHIPPED_ROLES, untagged("graphql-modeler", "GraphQL Modeler", "Designs GraphQL schemas and federation gateways")]);
    expect(reg.byId.get("graphql-modeler")?.capabilities).toEqual([]);
    const r = classifyIntent("design a graphql schema for orders", reg);
    expect(r.labels).toEqual([]);
    expect(r.candidates[0]).toMatchObject({ role_id: "graphql-modeler", matched: [], bm25: 1, score: 1 });
    expect(candidateNote(r)).toContain("graphql-modeler (text match)");
  });

  it("orders roles whose tags tie by BM25, so the role the request names comes first", () => {
    const reg = buildRegistry([
      roleEntry("a-generalist", ["security-review"]),
      { ...roleEntry("z-cluster-auditor", ["security-review"]), name: "Cluster Auditor", description: "Audits Kubernetes manifests" },
    ]);
    const r = classifyIntent("audit the Kubernetes manifests", reg);
    expect(r.candidates.map((c) => c.role_id)).toEqual(["z-cluster-auditor", "a-generalist"]);
    expect(r.candidates[0]!.score).toBeGreaterThan(r.candidates[1]!.score);
  });

  it("weighs a declared tag above a derived one, and the best text match like one declared tag", () => {
    const reg = buildRegistry([roleEntry("declared-tester", ["testing"]), untagged("derived-tester", "Tester", "test things")]);
    const r = classifyIntent("testing", reg);
    const byId = new Map(r.candidates.map((c) => [c.role_id, c]));
    expect(byId.get("declared-tester")).toMatchObject({ matched: ["testing"], derived: false });
    expect(byId.get("derived-tester")).toMatchObject({ matched: ["testing"], derived: true });
    for (const c of r.candidates) expect(c.score).toBeCloseTo((c.derived ? DERIVED_TAG_WEIGHT : 1) * c.matched.length + BM25_WEIGHT * c.bm25, 2);
  });

  it("ranks nothing, without failing, when the conversation may use no role", () => {
    expect(classifyIntent("audit the Kubernetes manifests", buildRegistry([])).candidates).toEqual([]);
    expect(classifyIntent("audit the Kubernetes manifests", restrictRegistry(buildRegistry(SHIPPED_ROLES), [])).candidates).toEqual([]);
  });

  it("uses BM25 with the classifier model's labels too", async () => {
    const reg = buildRegistry([...SHIPPED_ROLES, untagged("graphql-architect", "GraphQL Architect", "Designs GraphQL schemas")]);
    const r = await classifyIntentWithModel("design a graphql schema and document it", reg, scripted('{"labels": ["documentation"]}'));
    expect(r.source).toBe("model");
    expect(r.candidates.map((c) => c.role_id)).toContain("graphql-architect");
  });
});

describe("candidateNote", () => {
  it("lists roles with the tags that matched", () => {
    const note = candidateNote(classifyIntent("review the python code", registry));
    expect(note.startsWith("Candidate roles for this request: code-reviewer (code-review, python")).toBe(true);
    expect(note).toContain("Intent labels: code-review, python");
  });
});

function scripted(answer: string | Error, delayMs = 0): ChatModel & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    key: "mini",
    label: "Mini",
    offline: false,
    calls,
    async stream(req: ChatRequest): Promise<ChatResult> {
      calls.push(req);
      if (delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, delayMs);
          req.signal?.addEventListener("abort", () => {
            clearTimeout(t);
            reject(new ModelCallError("aborted", "aborted"));
          });
        });
      }
      if (answer instanceof Error) throw answer;
      return { content: answer, reasoning: "", tool_calls: [], usage: null, finish_reason: "stop", model: "mini" };
    },
  };
}

describe("classifyIntentWithModel", () => {
  it("uses the model's labels (validated, unknown ones dropped) and offers it the registry's tags", async () => {
    const model = scripted('```json\n{"labels": ["Documentation", "made-up"]}\n```');
    const r = await classifyIntentWithModel("整理一下项目的说明", registry, model);
    expect(r.source).toBe("model");
    expect(r.labels).toEqual(["documentation"]);
    expect(r.candidates.map((c) => c.role_id).sort()).toEqual(["researcher", "technical-writer"]);
    expect(model.calls[0]?.messages[0]?.content).toContain("code-review");
    expect(model.calls[0]?.thinking).toBe("off");
  });

  it.each([
    ["a model error", scripted(new ModelCallError("server", "boom"))],
    ["an answer that is not JSON", scripted("I think documentation")],
    ["JSON of the wrong shape", scripted('{"labels": "testing"}')],
    ["only unknown labels", scripted('{"labels": ["cooking"]}')],
  ])("falls back to deterministic matching on %s", async (_what, model) => {
    const r = await classifyIntentWithModel("write unit tests", registry, model);
    expect(r.source).toBe("deterministic");
    expect(r.candidates[0]?.role_id).toBe("test-engineer");
  });

  it("falls back when the model misses its deadline", async () => {
    const started = Date.now();
    const r = await classifyIntentWithModel("write unit tests", registry, scripted('{"labels":["documentation"]}', 5000), { timeoutMs: 50 });
    expect(r.source).toBe("deterministic");
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("role whitelist", () => {
  const all = SHIPPED_ROLES.map((r) => ({ id: r.id }));

  it("allows every registered role when the conversation has no allow list", () => {
    expect(authorizedRoles(all).map((r) => r.id)).toEqual(SHIPPED_ROLES.map((r) => r.id));
    expect(isAuthorized("researcher", all)).toBe(true);
  });

  it("refuses an unregistered role id", () => {
    expect(isAuthorized("root-shell", all)).toBe(false);
    expect(roleRefusal("root-shell", all)).toMatch(/^role "root-shell" is not registered; choose one of: code-reviewer, /);
  });

  it("refuses a registered role the conversation is not authorized for, and ignores unregistered ids on the list", () => {
    const allow = ["researcher", "ghost"];
    expect(authorizedRoles(all, allow).map((r) => r.id)).toEqual(["researcher"]);
    expect(isAuthorized("researcher", all, allow)).toBe(true);
    expect(isAuthorized("full-stack-engineer", all, allow)).toBe(false);
    expect(roleRefusal("full-stack-engineer", all, allow)).toBe('role "full-stack-engineer" is not authorized for this conversation; choose one of: researcher');
    expect(isAuthorized("ghost", all, allow)).toBe(false);
  });

  it("reads allowed_roles from conversation metadata, failing closed on a malformed list", () => {
    expect(allowListFromMetadata({ title: "x" })).toBeUndefined();
    expect(allowListFromMetadata(null)).toBeUndefined();
    expect(allowListFromMetadata({ allowed_roles: ["researcher"] })).toEqual(["researcher"]);
    expect(allowListFromMetadata({ allowed_roles: "researcher" })).toEqual([]);
    expect(allowListFromMetadata({ allowed_roles: ["../etc"] })).toEqual([]);
    expect(authorizedRoles(all, allowListFromMetadata({ allowed_roles: 5 }))).toEqual([]);
  });
});

describe("classifyIntent on a long message", () => {
  it("reads only the first INTENT_READ_CHARS characters", () => {
    expect(classifyIntent(`review this python code ${"x ".repeat(50_000)}`, registry).labels).toEqual(expect.arrayContaining(["code-review", "python"]));
    expect(classifyIntent(`${"x ".repeat(INTENT_READ_CHARS)} review this python code`, registry).labels).toEqual([]);
  });
});

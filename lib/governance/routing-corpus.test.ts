/**
 * Routing over the real Claude Code role collection in shared/corpus/roles (issue 9): none of
 * those files declares `capabilities`, so every role is routed by the tags derived from its name
 * and description and by BM25 over its text. Each file goes through the real parser.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseRoleFile, type RoleListEntry } from "@/lib/roles";
import { derivedCapabilitiesOf } from "@/lib/roles/derived";
import { candidateNote, classifyIntent } from "./intent";
import { buildRegistry } from "./registry";
import { deriveCapabilities } from "./vocabulary";

const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith(".md") && f !== "SOURCE.md").sort() : [];

/** Every corpus file as the role library lists it: parsed by parseRoleFile, broken files as error entries. */
function corpusEntries(): RoleListEntry[] {
  return files.map((file): RoleListEntry => {
    const role = parseRoleFile(file, readFileSync(path.join(CORPUS, file)));
    if (role.kind === "error") return { kind: "error", id: role.id, file, message: role.error.message };
    const { fields } = role;
    return {
      kind: "role",
      id: role.id,
      file,
      name: fields.name,
      description: fields.description,
      capabilities: fields.capabilities ?? [],
      ...derivedCapabilitiesOf(fields, deriveCapabilities),
      tools: fields.tools ?? [],
      permissions: fields.permissions ?? [],
      access: { permissions: [], project_tools: [] },
      warnings: role.warnings,
    };
  });
}

describe.skipIf(files.length === 0)("routing over the imported role corpus", () => {
  const entries = corpusEntries();
  const registry = buildRegistry(entries);
  const top3 = (goal: string) => classifyIntent(goal, registry, { limit: 3 }).candidates.map((c) => c.role_id);

  it("loads the corpus roles, none of which declares capabilities, and derives tags for nearly all", () => {
    const loaded = entries.filter((e) => e.kind === "role");
    expect(loaded.length).toBeGreaterThanOrEqual(150);
    expect(registry.roles).toHaveLength(loaded.length);
    for (const r of registry.roles) expect(r.capabilities_source).toBe("derived");
    expect(registry.roles.filter((r) => r.capabilities.length > 0).length).toBeGreaterThan(loaded.length * 0.9);
    expect(registry.byId.get("kubernetes-operations__kubernetes-architect")?.capabilities).toEqual(expect.arrayContaining(["kubernetes", "security-review"]));
  });

  it.each([
    ["audit the Kubernetes manifests for security issues", /kubernetes|security/],
    ["speed up the slow SQL queries in the reporting service", /database|sql|performance/],
    ["write unit tests for the payment module", /test/],
    ["set up Terraform modules for our AWS accounts", /terraform|cloud/],
    ["the iOS app crashes on launch, fix it", /ios|mobile/],
    ["rewrite the meta descriptions for better SEO", /seo/],
    ["our Rust service leaks memory", /rust/],
    ["design a GraphQL schema for the orders API", /graphql/],
  ])("%s → a fitting role in the first three", (goal, fits) => {
    const ids = top3(goal);
    expect(ids).toHaveLength(3);
    expect(ids.some((id) => fits.test(id)), `${goal}: ${ids.join(", ")}`).toBe(true);
    // Deterministic: the same request gives the same list.
    expect(top3(goal)).toEqual(ids);
  });

  it("puts a Kubernetes role first for the Kubernetes audit", () => {
    const r = classifyIntent("audit the Kubernetes manifests for security issues", registry);
    expect(r.labels).toEqual(expect.arrayContaining(["kubernetes", "security-review"]));
    expect(r.candidates[0]?.role_id).toMatch(/kubernetes/);
    expect(r.candidates[0]).toMatchObject({ derived: true, matched: expect.arrayContaining(["kubernetes", "security-review"]) });
    expect(candidateNote(r)).toMatch(/^Candidate roles for this request: \S*kubernetes\S* \([^)]*; derived tags\)/);
  });

  it("routes a Chinese request through the Chinese terms of the vocabulary", () => {
    const r = classifyIntent("审查支付模块的安全漏洞", registry);
    expect(r.labels).toEqual(expect.arrayContaining(["code-review", "payment", "security-review"]));
    expect(r.candidates.length).toBeGreaterThan(0);
    expect(r.candidates.slice(0, 3).every((c) => /security|review|payment/.test(c.role_id))).toBe(true);
  });

  it("finds by BM25 alone a role the vocabulary has no tag for", () => {
    const r = classifyIntent("model the order lifecycle with event sourcing and CQRS", registry, { limit: 3 });
    expect(r.candidates[0]).toMatchObject({ role_id: "event-sourcing-architect" });
    expect(r.candidates[0]?.matched).toEqual([]);
    expect(r.candidates[0]?.bm25).toBe(1);
  });

  it("lists nothing for a greeting", () => {
    expect(classifyIntent("hello, how are you?", registry).candidates).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { CAPABILITY_SYNONYMS, CAPABILITY_VOCABULARY, DERIVE_READ_CHARS, deriveCapabilities } from "./vocabulary";

describe("deriveCapabilities", () => {
  it("derives vocabulary tags from the name and description, case-insensitively, English words in text order", () => {
    expect(deriveCapabilities("cicd-automation-kubernetes-architect", "Handles K8S security and GitOps deployments. Writes Python tooling.")).toEqual([
      "devops",
      "kubernetes",
      "architecture",
      "security-review",
      "python",
    ]);
    expect(deriveCapabilities("SQL Pro", "Tunes slow QUERIES on PostgreSQL")).toEqual(["sql", "database", "performance"]);
  });

  it("matches whole words only: a keyword inside a longer word derives nothing", () => {
    expect(deriveCapabilities("Contest judge", "Testament, protests, reviewed-ness aside: a shellfish sommelier")).not.toContain("testing");
    expect(deriveCapabilities("Mobilemaker", "Sqlish kubernetesque documentor")).toEqual([]);
    expect(deriveCapabilities("x", "uint db2")).toEqual([]);
  });

  it("knows stems and two-word tags", () => {
    expect(deriveCapabilities("Test automator", "Writes unit tests and integration test suites; performs code reviews")).toEqual([
      "testing",
      "unit-tests",
      "integration-tests",
      "code-review",
    ]);
    expect(deriveCapabilities("Fixer", "bug fixing for vulnerabilities")).toEqual(["bug-fix", "security-review"]);
  });

  it("derives from Chinese text by its Chinese terms", () => {
    expect(deriveCapabilities("支付审计员", "负责支付模块的安全审查")).toEqual(["payment", "security-review", "code-review"]);
  });

  it("derives nothing from text the vocabulary does not know", () => {
    expect(deriveCapabilities("Chef", "Cooks pasta with garlic")).toEqual([]);
  });

  it("reads a bounded prefix of the text, so an enormous description costs a bounded amount of work", () => {
    const filler = "lorem-".repeat(Math.ceil(DERIVE_READ_CHARS / 6));
    expect(deriveCapabilities("Filler", `${filler} kubernetes`)).toEqual([]);
    expect(deriveCapabilities("Filler", `kubernetes ${filler}`)).toEqual(["kubernetes"]);
    // Input that would make a backtracking pattern explode is just words to this matcher.
    expect(deriveCapabilities("x", `${"a-".repeat(100_000)}!`)).toEqual([]);
  });

  it("only ever derives tags of the vocabulary", () => {
    const everything = Object.keys(CAPABILITY_SYNONYMS).join(" ");
    const tags = deriveCapabilities("everything", everything);
    expect(tags.length).toBeGreaterThan(40);
    for (const t of tags) expect(CAPABILITY_VOCABULARY.has(t)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { roleIndex, roleIndexBuilds, SEARCH_MAX_TERMS, SEARCH_READ_CHARS, type IndexableRole } from "./role-index";

const roles: IndexableRole[] = [
  { id: "graphql-architect", name: "GraphQL Architect", description: "Designs GraphQL schemas, resolvers and federation.", capabilities: [] },
  { id: "sql-pro", name: "SQL Pro", description: "Writes and tunes SQL queries and indexes.", capabilities: ["sql", "database"] },
  { id: "chef", name: "Chef", description: "Cooks pasta.", capabilities: [] },
];

describe("roleIndex (MiniSearch BM25)", () => {
  it("ranks roles by their id, name, description and tags for a request", () => {
    const index = roleIndex(roles);
    expect(index.search("design a GraphQL schema").map((h) => h.role_id)).toEqual(["graphql-architect"]);
    const hits = index.search("the slow queries need new indexes");
    expect(hits[0]?.role_id).toBe("sql-pro");
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(index.search("database").map((h) => h.role_id)).toEqual(["sql-pro"]);
  });

  it("finds nothing for filler words or words no role has", () => {
    const index = roleIndex(roles);
    expect(index.search("please help me with this")).toEqual([]);
    expect(index.search("quantum entanglement")).toEqual([]);
    expect(index.search("")).toEqual([]);
  });

  it("keeps the roles' order for equal scores", () => {
    const twins: IndexableRole[] = [
      { id: "b-twin", name: "Twin", description: "Kubernetes operator", capabilities: [] },
      { id: "a-twin", name: "Twin", description: "Kubernetes operator", capabilities: [] },
    ];
    expect(roleIndex(twins).search("kubernetes").map((h) => h.role_id)).toEqual(["b-twin", "a-twin"]);
  });

  it("builds one index per set of role texts and reuses it for every later request", () => {
    const first = roleIndex(roles);
    const builds = roleIndexBuilds();
    const same = roleIndex(roles.map((r) => ({ ...r, capabilities: [...r.capabilities] })));
    expect(same).toBe(first);
    same.search("graphql");
    expect(roleIndexBuilds()).toBe(builds);
    const edited = roleIndex([{ ...roles[0]!, description: "Designs REST endpoints." }, ...roles.slice(1)]);
    expect(edited).not.toBe(first);
    expect(roleIndexBuilds()).toBe(builds + 1);
    expect(edited.search("graphql").map((h) => h.role_id)).toEqual(["graphql-architect"]);
    expect(edited.search("schema")).toEqual([]);
  });

  it("searches only the start of a very long request", () => {
    const index = roleIndex(roles);
    expect(index.search(`${"x ".repeat(SEARCH_READ_CHARS)} graphql`)).toEqual([]);
    expect(index.search(`graphql ${"x ".repeat(100_000)}`).map((h) => h.role_id)).toEqual(["graphql-architect"]);
  });

  it("searches only the first terms of a request, however few characters they take (a CJK run is a bigram per character)", () => {
    const index = roleIndex(roles);
    // distinct words no role has, then one a role has: that one is past the terms searched
    const filler = Array.from({ length: SEARCH_MAX_TERMS }, (_, i) => `zz${i}`).join(" ");
    expect(filler.length).toBeLessThan(SEARCH_READ_CHARS);
    expect(index.search(`graphql ${filler}`).map((h) => h.role_id)).toEqual(["graphql-architect"]);
    expect(index.search(`${filler} graphql`)).toEqual([]);
  });

  it("matches Chinese text by bigrams", () => {
    const index = roleIndex([...roles, { id: "zh-writer", name: "中文写手", description: "撰写技术文档和教程", capabilities: [] }]);
    expect(index.search("帮我写技术文档").map((h) => h.role_id)).toEqual(["zh-writer"]);
  });
});

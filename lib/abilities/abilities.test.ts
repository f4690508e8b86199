import { describe, expect, it } from "vitest";
import { TOOLS } from "@/lib/team-tools";
import { abilityResult, abilityTaskText, abilityToolSpec, checkAbilityInput } from "./calls";
import { abilitiesOfferedTo, abilityTable, qualifiedToolName, shortHash, type OfferedAbility, type RoleAbilities } from "./naming";
import { AbilitySchema, MAX_SCHEMA_CHARS, ProvidesSchema, type Ability } from "./schema";

const INPUT = { type: "object", properties: { module: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1, maximum: 10 } }, required: ["module"], additionalProperties: false };
const OUTPUT = { type: "object", properties: { cases: { type: "array", items: { type: "string" }, minItems: 1 } }, required: ["cases"] };
const gen: Ability = { name: "generate_test_cases", description: "Write test cases for a module", input: INPUT, output: OUTPUT };
const builtIn = TOOLS.map((t) => t.name);

function issues(value: unknown): string[] {
  const r = ProvidesSchema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("provides: declaration", () => {
  it("accepts a name, a description, an object input schema and an optional output schema", () => {
    expect(issues([gen, { name: "summarize", description: "d", input: { type: "object" } }])).toEqual([]);
  });

  it("refuses names that are no function name or could not be split back from a qualified name", () => {
    for (const name of ["generate-cases", "1cases", "_x", "x_", "a__b", "has space", "x".repeat(49), ""]) {
      expect(AbilitySchema.safeParse({ ...gen, name }).success, name).toBe(false);
    }
  });

  it("refuses an input that is not an object schema, and schemas zod cannot compile", () => {
    expect(issues([{ ...gen, input: { type: "string" } }]).join()).toMatch(/object schema/);
    expect(issues([{ ...gen, input: { properties: { a: { type: "string" } } } }]).join()).toMatch(/object schema/);
    expect(issues([{ ...gen, input: { type: "object", properties: { a: { type: "strin" } } } }]).join()).toMatch(/not a usable JSON Schema: Unsupported type/);
    expect(issues([{ ...gen, input: { type: "object", if: {}, then: {} } }]).join()).toMatch(/not a usable JSON Schema/);
    expect(issues([{ ...gen, output: { $ref: "http://example.com/s.json" } }]).join()).toMatch(/External \$ref/);
  });

  it("bounds sizes: schema characters, nesting, the number of abilities, the description", () => {
    const big = { type: "object", description: "x".repeat(MAX_SCHEMA_CHARS) };
    expect(issues([{ ...gen, input: big }]).join()).toMatch(/at most 16384/);
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 30; i++) deep = { type: "object", properties: { a: deep } };
    expect(issues([{ ...gen, input: deep }]).join()).toMatch(/nests more than/);
    expect(issues(Array.from({ length: 33 }, (_, i) => ({ ...gen, name: `a${i}` }))).join()).toMatch(/at most 32/);
    expect(issues([{ ...gen, description: "" }]).join()).toMatch(/description is required/);
  });

  it("refuses a name declared twice and unknown keys (a misspelt inputs:)", () => {
    expect(issues([gen, gen]).join()).toMatch(/declared twice/);
    expect(issues([{ name: "a", description: "d", inputs: INPUT }]).length).toBeGreaterThan(0);
  });
});

describe("tool names of abilities", () => {
  const roles: RoleAbilities[] = [
    { role_id: "tester", role_name: "Tester", provides: [gen, { name: "read_file", description: "clashes with a built-in", input: { type: "object" } }] },
    { role_id: "reviewer", role_name: "Reviewer", provides: [{ name: "review", description: "Review", input: { type: "object" } }] },
    { role_id: "qa", role_name: "QA", provides: [{ name: "review", description: "Also review", input: { type: "object" } }] },
  ];
  const table = abilityTable(roles, builtIn);

  it("keeps a unique declared name, qualifies clashes with built-ins and between roles", () => {
    expect([...table.keys()]).toEqual(["generate_test_cases", "tester__read_file", "reviewer__review", "qa__review"]);
    expect(table.get("generate_test_cases")!.role_id).toBe("tester");
    expect(table.get("qa__review")!.ability.description).toBe("Also review");
    // Reserved for the command tool being added beside the registry.
    expect([...abilityTable([{ role_id: "ops", role_name: "Ops", provides: [{ name: "run_command", description: "d", input: { type: "object" } }] }], builtIn).keys()]).toEqual(["ops__run_command"]);
  });

  it("never offers an agent its own role's abilities", () => {
    expect(abilitiesOfferedTo(table, "tester").map((o) => o.tool_name)).toEqual(["reviewer__review", "qa__review"]);
    expect(abilitiesOfferedTo(table, "reviewer").map((o) => o.tool_name)).toEqual(["generate_test_cases", "tester__read_file", "qa__review"]);
  });

  it("hashes a qualified name that would be too long or fall under the MCP prefix", () => {
    const long = "r".repeat(70);
    expect(qualifiedToolName(long, "go")).toBe(`r${shortHash(long)}__go`);
    expect(qualifiedToolName("mcp", "go")).toBe(`r${shortHash("mcp")}__go`);
    expect(qualifiedToolName("mcp__github", "go")).toMatch(/^r[0-9a-f]{8}__go$/);
    expect(qualifiedToolName("gw__shop", "getOrder")).toMatch(/^r[0-9a-f]{8}__getOrder$/);
    expect(qualifiedToolName("tester", "go")).toBe("tester__go");
    for (const name of table.keys()) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe("an ability call", () => {
  const offered: OfferedAbility = { tool_name: "generate_test_cases", role_id: "tester", role_name: "Tester", ability: gen };

  it("is shown to the model with the declared input schema as its parameters, unchanged", () => {
    const spec = abilityToolSpec(offered);
    expect(spec.function.name).toBe("generate_test_cases");
    expect(spec.function.parameters).toEqual(INPUT);
    expect(spec.function.description).toMatch(/Write test cases for a module[\s\S]*role Tester \(tester\)/);
  });

  it("checks its arguments against the declared input", () => {
    expect(checkAbilityInput(offered, '{"module":"payment","count":3}')).toEqual({ ok: true, input: { module: "payment", count: 3 } });
    const bad = checkAbilityInput(offered, '{"count":30,"extra":1}');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/invalid arguments for generate_test_cases \(its declared input schema\): module: .*; count: Too big.*Unrecognized key: "extra"/);
    expect(checkAbilityInput(offered, "{nope")).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(checkAbilityInput(offered, "x".repeat(100_001))).toMatchObject({ ok: false, error: expect.stringMatching(/arguments refused/) });
  });

  it("gives the callee a task with the input and how to answer", () => {
    const text = abilityTaskText(offered, { module: "payment" }, "Reviewer_1");
    expect(text).toContain("Ability request: generate_test_cases");
    expect(text).toContain('"module": "payment"');
    expect(text).toMatch(/report_to_leader: your summary goes back to Reviewer_1/);
    expect(text).toContain(JSON.stringify(OUTPUT));
  });

  it("validates the reply against the declared output", () => {
    const ok = abilityResult(offered, { from: "Tester_2", status: "completed", text: '{"cases":["pays","refunds"]}' });
    expect(ok.ok).toBe(true);
    expect(JSON.parse(ok.result)).toEqual({ from: "Tester_2", status: "completed", result: { cases: ["pays", "refunds"] } });
    // A fenced JSON block is the reply's JSON too.
    expect(abilityResult(offered, { from: "T", status: "completed", text: '```json\n{"cases":["a"]}\n```' }).ok).toBe(true);
    const mismatch = abilityResult(offered, { from: "Tester_2", status: "completed", text: '{"cases":[]}' });
    expect(mismatch.ok).toBe(false);
    expect(JSON.parse(mismatch.result)).toMatchObject({ error: expect.stringMatching(/reply of Tester_2 does not match the declared output of generate_test_cases: cases: Too small/), reply: '{"cases":[]}' });
    const prose = abilityResult(offered, { from: "Tester_2", status: "completed", text: "Here are some cases" });
    expect(JSON.parse(prose.result).error).toMatch(/it is not JSON/);
  });

  it("returns the reply text when no output is declared, and a failed callee as a tool error", () => {
    const plain = { ...offered, ability: { ...gen, output: undefined } };
    expect(JSON.parse(abilityResult(plain, { from: "T", status: "partial", text: "half" }).result)).toEqual({ from: "T", status: "partial", result: "half" });
    const failed = abilityResult(plain, { from: "T", status: "failed", text: "model down" });
    expect(failed.ok).toBe(false);
    expect(JSON.parse(failed.result).error).toBe("T could not do generate_test_cases: model down");
  });
});

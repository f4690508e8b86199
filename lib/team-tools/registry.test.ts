import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseCatalog } from "@/lib/offline-model/leader-plan";
import { SHARED_CONTEXT_READ_ONLY_TOOLS, SHARED_CONTEXT_TOOL_ARGS, sharedContextTools } from "@/lib/shared-context/tool-specs";
import { defineTool, parametersOf, parseToolArguments, toolSpec } from "@/lib/tools";
import { AGENT_TOOL_ARGS, agentTools, createSubAgentArgs, LEADER_TOOL_ARGS, leaderTools, READ_ONLY_TOOLS, toolEffect, toolNamed, toolsOf, TOOLS, type RoleChoice } from "./index";

type JsonSchema = { type?: string; enum?: unknown[]; minLength?: number; minimum?: number; exclusiveMinimum?: number; description?: string; [k: string]: unknown };
type ObjectSchema = { type: "object"; properties: Record<string, JsonSchema>; required?: string[] };

/** A value the JSON Schema of one argument says is valid: what a model following the schema may send. */
function exampleFor(name: string, s: JsonSchema): unknown {
  if (s.enum) return s.enum[0];
  switch (s.type) {
    case "string":
      return "x".repeat(Math.max(1, s.minLength ?? 0));
    case "integer":
    case "number":
      return s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? 1);
    case "boolean":
      return true;
    default:
      throw new Error(`${name}: the test cannot make an example of ${JSON.stringify(s)}; extend it with the new argument type`);
  }
}

/** A value of the wrong JSON type for one argument. */
function wrongTypeFor(s: JsonSchema): unknown {
  return s.type === "string" ? 12345 : s.type === "boolean" ? "yes" : "not a number";
}

const roles: RoleChoice[] = [
  { id: "researcher", name: "Researcher", description: "Finds things out", capabilities: ["research"] },
  { id: "code-reviewer", name: "Code Reviewer", description: "Reviews code", capabilities: ["code-review", "python"] },
];

/** Every spec offered to anyone, create_sub_agent with `roles`. */
const offered = () => [...leaderTools(roles), ...agentTools(["read", "write", "execute"]), ...sharedContextTools()];

/** The zod schema a spec was generated from: the tool's own, or create_sub_agent's narrowed to `roles`. */
function offeredArgs(name: string) {
  return name === "create_sub_agent" ? createSubAgentArgs(roles.map((r) => r.id)) : toolNamed(name)!.args;
}

describe("what each tool does to the world (effect)", () => {
  it("is read exactly for the read-only tools, and names what the others do", () => {
    for (const t of TOOLS) expect(t.effect === "read", t.name).toBe(t.readOnly);
    const effect = Object.fromEntries(TOOLS.map((t) => [t.name, t.effect]));
    expect(effect).toMatchObject({ write_file: "write", run_command: "execute", read_file: "read", ask_master: "read", report_to_leader: "internal", send_message: "internal", update_shared_context: "internal", create_sub_agent: "internal" });
    expect(toolEffect("run_command")).toBe("execute");
    expect(toolEffect("mcp__x__y")).toBeUndefined();
  });

  it("refuses a definition whose effect disagrees with readOnly", () => {
    expect(() => defineTool({ name: "x", description: "x", args: z.object({}), readOnly: true, effect: "write", audience: "agent" })).toThrow(/disagrees/);
    expect(() => defineTool({ name: "y", description: "y", args: z.object({}), readOnly: false, effect: "read", audience: "agent" })).toThrow(/disagrees/);
  });

  it("offers run_command only with the execute permission", () => {
    expect(agentTools(["read", "write"]).map((s) => s.function.name)).not.toContain("run_command");
    expect(agentTools(["read", "execute"]).map((s) => s.function.name)).toContain("run_command");
    expect(agentTools(true).map((s) => s.function.name)).not.toContain("run_command");
  });
});

describe("the tool registry: one definition per tool", () => {
  it("offers every registered tool once, under a unique name", () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(offered().map((s) => s.function.name).sort()).toEqual([...names].sort());
    expect(Object.keys(LEADER_TOOL_ARGS)).toEqual(leaderTools(roles).map((s) => s.function.name));
    expect(Object.keys(AGENT_TOOL_ARGS)).toEqual(agentTools(["read", "write", "execute"]).map((s) => s.function.name));
    expect(Object.keys(SHARED_CONTEXT_TOOL_ARGS)).toEqual(sharedContextTools().map((s) => s.function.name));
    for (const t of TOOLS) expect(toolNamed(t.name)).toBe(t);
    expect(toolNamed("constructor")).toBeUndefined();
    expect(toolNamed("__proto__")).toBeUndefined();
  });

  it("sends each tool's JSON Schema as z.toJSONSchema generates it from the zod schema, without $schema", () => {
    for (const spec of offered()) {
      const tool = toolNamed(spec.function.name)!;
      const { $schema, ...generated } = z.toJSONSchema(offeredArgs(tool.name), { io: "input" });
      expect($schema).toBeDefined();
      expect(spec.function.parameters).not.toHaveProperty("$schema");
      // The only difference from zod's output: integers lose the safe-integer bounds every .int() adds.
      expect(JSON.stringify(spec.function.parameters)).not.toContain(String(Number.MAX_SAFE_INTEGER));
      const bounds = JSON.stringify(generated).replace(new RegExp(`,"(maximum|minimum)":-?${Number.MAX_SAFE_INTEGER}`, "g"), "");
      expect(spec.function.parameters).toEqual(JSON.parse(bounds));
      expect(spec.function.description).toContain(tool.description);
    }
  });

  it("lists exactly the zod schema's arguments, requires exactly those without a default, keeps every description", () => {
    for (const spec of offered()) {
      const tool = toolNamed(spec.function.name)!;
      const params = spec.function.parameters as ObjectSchema;
      const shape = tool.args.shape as Record<string, z.ZodType>;
      expect(params.type).toBe("object");
      expect(Object.keys(params.properties)).toEqual(Object.keys(shape));
      const optional = Object.keys(shape).filter((k) => shape[k]!.safeParse(undefined).success);
      expect(params.required ?? [], spec.function.name).toEqual(Object.keys(shape).filter((k) => !optional.includes(k)));
      for (const [k, s] of Object.entries(shape)) {
        if (s.description && !(spec.function.name === "create_sub_agent" && k === "role_id")) expect(params.properties[k]!.description).toBe(s.description);
      }
    }
  });

  it("what the JSON Schema describes is what the tool's zod schema accepts", () => {
    for (const spec of offered()) {
      const name = spec.function.name;
      const tool = toolNamed(name)!;
      const params = spec.function.parameters as ObjectSchema;
      const required = params.required ?? [];
      const minimal = Object.fromEntries(required.map((k) => [k, exampleFor(`${name}.${k}`, params.properties[k]!)]));
      const full = Object.fromEntries(Object.entries(params.properties).map(([k, s]) => [k, exampleFor(`${name}.${k}`, s)]));
      for (const example of [minimal, full]) expect(parseToolArguments(tool.args, JSON.stringify(example)), `${name} ${JSON.stringify(example)}`).toMatchObject({ ok: true });
      for (const k of required) {
        const without: Record<string, unknown> = { ...minimal };
        delete without[k];
        expect(tool.args.safeParse(without).success, `${name} without ${k}`).toBe(false);
      }
      for (const [k, s] of Object.entries(params.properties)) {
        expect(tool.args.safeParse({ ...full, [k]: wrongTypeFor(s) }).success, `${name}.${k} of the wrong type`).toBe(false);
        if (s.enum) expect(offeredArgs(name).safeParse({ ...full, [k]: "not-one-of-the-enum" }).success, `${name}.${k} outside its enum`).toBe(false);
      }
    }
  });

  it("shows id arguments as integers although zod coerces them from strings", () => {
    for (const name of ["send_message_to_agent", "terminate_agent", "send_message"]) {
      const agentId = (parametersOf(toolNamed(name)!.args) as ObjectSchema).properties.agent_id!;
      expect(agentId).toMatchObject({ type: "integer", exclusiveMinimum: 0 });
      expect(toolNamed(name)!.args.safeParse({ agent_id: "3", content: "hi" }).data).toMatchObject({ agent_id: 3 });
    }
    expect((parametersOf(SHARED_CONTEXT_TOOL_ARGS.update_shared_context) as ObjectSchema).properties.expected_version).toMatchObject({ type: "integer", minimum: 0 });
  });

  it("generates each static schema once and hands out one frozen object", () => {
    for (const tool of TOOLS) {
      expect(toolSpec(tool)).toBe(toolSpec(tool));
      expect(Object.isFrozen(toolSpec(tool).function.parameters)).toBe(true);
    }
    const spec = agentTools(false)[0]!;
    expect(agentTools(false)[0]).toBe(spec);
    expect(() => {
      (spec.function.parameters as ObjectSchema).properties.summary!.description = "changed";
    }).toThrow(TypeError);
  });

  it("has no hand-written JSON Schema left in lib/ (outside tests)", () => {
    const root = path.resolve(__dirname, "..");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(50);
    // The gateway's tool schemas are derived from an API's OpenAPI document (their one source), not written here.
    const derived = new Set([path.join("gateway", "openapi.ts")]);
    const handWritten = files.filter((f) => !derived.has(f) && /\btype:\s*["']object["']/.test(readFileSync(path.join(root, f), "utf8")));
    expect(handWritten).toEqual([]);
  });
});

describe("create_sub_agent: the roles of the conversation", () => {
  it("enumerates exactly the given role ids, in order, and the catalog names them", () => {
    const [spec] = leaderTools(roles);
    expect(spec!.function.name).toBe("create_sub_agent");
    expect((spec!.function.parameters as ObjectSchema).properties.role_id).toMatchObject({ type: "string", enum: ["researcher", "code-reviewer"] });
    expect(spec!.function.description).toMatch(/\n- researcher: Researcher — Finds things out \(capabilities: research\)\n- code-reviewer: /);
    const only = leaderTools([roles[1]!])[0]!;
    expect((only.function.parameters as ObjectSchema).properties.role_id!.enum).toEqual(["code-reviewer"]);
    // The offline model reads the same enum and catalog.
    expect(parseCatalog(spec).map((r) => [r.id, r.name, r.capabilities])).toEqual([
      ["researcher", "Researcher", ["research"]],
      ["code-reviewer", "Code Reviewer", ["code-review", "python"]],
    ]);
  });

  it("makes the specs once per role catalog and makes them again when a role changes", () => {
    const first = leaderTools(roles);
    const again = leaderTools(roles.map((r) => ({ ...r })));
    // The same roles (equal, not the same objects): the same frozen spec, its JSON Schema not made again.
    expect(again[0]).toBe(first[0]);
    expect(again).not.toBe(first);
    const renamed = leaderTools([{ ...roles[0]!, description: "Finds other things out" }, roles[1]!]);
    expect(renamed[0]).not.toBe(first[0]);
    expect(renamed[0]!.function.description).toMatch(/Finds other things out/);
    const fewer = leaderTools([roles[0]!]);
    expect((fewer[0]!.function.parameters as ObjectSchema).properties.role_id!.enum).toEqual(["researcher"]);
  });

  it("what the model is offered is accepted by the tool's own schema; other roles are not offered", () => {
    const offeredArgs = createSubAgentArgs(["researcher"]);
    expect(offeredArgs.safeParse({ role_id: "researcher", task: "t" }).success).toBe(true);
    expect(offeredArgs.safeParse({ role_id: "code-reviewer", task: "t" }).success).toBe(false);
    expect(parseToolArguments(LEADER_TOOL_ARGS.create_sub_agent, JSON.stringify({ role_id: "researcher", task: "t" }))).toEqual({
      ok: true,
      args: { role_id: "researcher", task: "t", critical: true },
    });
  });

  it("with no role still produces a valid object schema (a plain string, no empty enum) and an empty catalog", () => {
    const [spec] = leaderTools([]);
    const params = spec!.function.parameters as ObjectSchema;
    expect(params).toMatchObject({ type: "object", required: ["role_id", "task"] });
    expect(params.properties.role_id).toMatchObject({ type: "string", description: expect.stringMatching(/no role/i) });
    expect(params.properties.role_id).not.toHaveProperty("enum");
    expect(params.properties.role_id).not.toHaveProperty("not");
    expect(spec!.function.description).toMatch(/Available roles: none\.$/);
    expect(parseCatalog(spec)).toEqual([]);
  });
});

describe("who is offered what", () => {
  it("offers write_file only with the write permission", () => {
    expect(agentTools(false).map((s) => s.function.name)).not.toContain("write_file");
    expect(agentTools(true).map((s) => s.function.name)).toContain("write_file");
    expect(agentTools(true).map((s) => s.function.name).filter((n) => n !== "write_file")).toEqual(agentTools(false).map((s) => s.function.name));
    expect(toolNamed("write_file")).toMatchObject({ audience: "agent", permission: "write", readOnly: false });
    expect(toolsOf("agent", ["read"]).map((t) => t.name)).not.toContain("write_file");
  });

  it("offers only the file tools a role's tools: map to, and the team tools always", () => {
    const names = (canWrite: boolean, fileTools?: string[]) => agentTools(canWrite, fileTools).map((s) => s.function.name);
    expect(names(true, ["read_file"])).toEqual(["report_to_leader", "ask_master", "send_message", "read_file"]);
    expect(names(true, [])).toEqual(["report_to_leader", "ask_master", "send_message"]);
    expect(names(true, ["write_file"])).toEqual(["report_to_leader", "ask_master", "send_message", "write_file"]);
    // The write permission still gates write_file (a role edited to drop write narrows it).
    expect(names(false, ["write_file"])).not.toContain("write_file");
    expect(names(true, undefined)).toEqual(names(true));
  });

  it("never offers a leader tool to a sub-agent or a sub-agent tool to the leader", () => {
    const leader = leaderTools(roles).map((s) => s.function.name);
    const agent = agentTools(true).map((s) => s.function.name);
    expect(leader.filter((n) => agent.includes(n))).toEqual([]);
    expect(leader).toContain("create_sub_agent");
    expect(agent).not.toContain("create_sub_agent");
    expect(sharedContextTools().map((s) => s.function.name)).toEqual(["read_shared_context", "update_shared_context"]);
  });

  it("takes the read-only classification from the registry", () => {
    expect([...READ_ONLY_TOOLS].sort()).toEqual(TOOLS.filter((t) => t.readOnly).map((t) => t.name).sort());
    // Pinned: a tool that becomes (or stops being) re-runnable after a crash is a deliberate change.
    expect([...READ_ONLY_TOOLS].sort()).toEqual(["ask_master", "list_agents", "list_files", "read_file", "read_shared_context", "search_files"]);
    expect([...SHARED_CONTEXT_READ_ONLY_TOOLS]).toEqual(["read_shared_context"]);
    for (const name of ["write_file", "create_sub_agent", "update_shared_context", "send_message", "report_to_leader"]) expect(READ_ONLY_TOOLS.has(name)).toBe(false);
  });
});

/**
 * The `tools:` mapping over hand-picked names and over every `tools:` value of the Claude Code
 * corpus (shared/corpus/roles): each maps without throwing, and the unknown names are counted.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseRoleFile } from "./parse";
import { FILE_TOOLS, mapToolName, roleToolAccess, toolWarnings } from "./tool-mapping";
import { AGENT_TOOLS } from "@/lib/team-tools/team";

const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith(".md") && f !== "SOURCE.md").sort() : [];

describe("mapToolName", () => {
  it("maps Read, Grep, Glob and LS to the read tools", () => {
    for (const name of ["Read", "Grep", "Glob", "LS"]) {
      expect(mapToolName(name)).toEqual({ name, kind: "mapped", grants: ["list_files", "read_file", "search_files"], warning: false });
    }
  });

  it("maps Write, Edit and MultiEdit to write_file", () => {
    for (const name of ["Write", "Edit", "MultiEdit"]) expect(mapToolName(name)).toMatchObject({ kind: "mapped", grants: ["write_file"], warning: false });
  });

  it("maps MCP names to their server (and tool), warning only for a server mcp.json does not declare", () => {
    expect(mapToolName("mcp__meigen__generate_image")).toMatchObject({ kind: "mcp", server: "meigen", tool: "generate_image", grants: [], warning: false });
    expect(mapToolName("mcp__github")).toMatchObject({ kind: "mcp", server: "github", tool: null, warning: false });
    expect(mapToolName("mcp__my_srv__get__thing")).toMatchObject({ kind: "mcp", server: "my_srv", tool: "get__thing" });
    expect(mapToolName("mcp__github__x", new Set(["github"]))).toMatchObject({ kind: "mcp", warning: false });
    expect(mapToolName("mcp__meigen__x", new Set(["github"]))).toMatchObject({ kind: "mcp", undeclared: true, warning: true });
    expect(toolWarnings(["Read", "mcp__github__a", "mcp__nope__b"], new Set(["github"])).map((m) => m.name)).toEqual(["mcp__nope__b"]);
    // Not a server name: `mcp__` alone, or a server part with a double underscore cannot be told apart.
    expect(mapToolName("mcp__")).toMatchObject({ kind: "unknown", warning: true });
  });

  it("maps gw__<source>__<operation> to a protocol gateway tool, without a warning and without file tools", () => {
    expect(mapToolName("gw__shop__getOrder")).toMatchObject({ kind: "gateway", source: "shop", grants: [], warning: false });
    expect(mapToolName("gw____x")).toMatchObject({ kind: "unknown", warning: true });
    expect(roleToolAccess({ tools: ["gw__shop__getOrder"] })).toMatchObject({ source: "explicit", permissions: [], file_tools: [] });
  });

  it("maps Bash to run_command; warns for BashOutput (no counterpart) and unknown names", () => {
    expect(mapToolName("Bash")).toEqual({ name: "Bash", kind: "mapped", grants: ["run_command"], warning: false });
    expect(mapToolName("run_command")).toMatchObject({ kind: "mapped", grants: ["run_command"], warning: false });
    expect(mapToolName("BashOutput")).toMatchObject({ kind: "unavailable", grants: [], warning: true });
    expect(mapToolName("Frobnicate")).toMatchObject({ kind: "unknown", grants: [], warning: true });
    // Case matters, as in Claude Code: `read` is not `Read`.
    expect(mapToolName("read")).toMatchObject({ kind: "unknown", warning: true });
    // Names that are keys of Object.prototype are names like any other.
    expect(mapToolName("constructor")).toMatchObject({ kind: "unknown", warning: true });
    expect(mapToolName("__proto__")).toMatchObject({ kind: "unknown", warning: true });
  });

  it("covers SendMessage with the always-offered send_message, and accepts this product's own tool names", () => {
    expect(mapToolName("SendMessage")).toMatchObject({ kind: "team", covered_by: "send_message", warning: false });
    expect(mapToolName("write_file")).toMatchObject({ kind: "mapped", grants: ["write_file"] });
  });

  it("knows exactly the registry's file tools", () => {
    const registry = AGENT_TOOLS.map((t) => t.name);
    for (const tool of FILE_TOOLS) expect(registry).toContain(tool);
    expect(AGENT_TOOLS.filter((t) => !t.readOnly && t.permission === "write").map((t) => t.name)).toEqual(["write_file"]);
  });
});

describe("roleToolAccess", () => {
  it("without tools: permissions decide (read tools always, write_file with write)", () => {
    expect(roleToolAccess({})).toEqual({ source: "permissions", permissions: ["read"], file_tools: ["list_files", "read_file", "search_files"], mappings: [] });
    expect(roleToolAccess({ permissions: ["read", "write"] }).file_tools).toContain("write_file");
  });

  it("with tools: exactly the mapped tools, whatever permissions say", () => {
    const readOnly = roleToolAccess({ tools: ["Read", "Grep"], permissions: ["read", "write"] });
    expect(readOnly).toMatchObject({ source: "explicit", permissions: ["read"], file_tools: ["list_files", "read_file", "search_files"] });
    const writer = roleToolAccess({ tools: ["Read", "Write"], permissions: ["read"] });
    expect(writer).toMatchObject({ permissions: ["read", "write"], file_tools: ["list_files", "read_file", "search_files", "write_file"] });
    expect(roleToolAccess({ tools: ["Edit"] })).toMatchObject({ permissions: ["write"], file_tools: ["write_file"] });
    // An empty list is no list: the editor writes no key for it, and its hint says "empty means the defaults".
    expect(roleToolAccess({ tools: [], permissions: ["read", "write"] })).toMatchObject({ source: "permissions", permissions: ["read", "write"] });
    // Bash gives run_command (the execute permission) and no file tool.
    expect(roleToolAccess({ tools: ["Bash", "mcp__x__y"] })).toMatchObject({ permissions: ["execute"], file_tools: [] });
    expect(roleToolAccess({ tools: ["Read"], permissions: ["read", "execute"] }).permissions).toEqual(["read"]);
    expect(roleToolAccess({ permissions: ["read", "execute"] })).toMatchObject({ source: "permissions", permissions: ["read", "execute"] });
  });

  it("reads a comma string and a YAML list alike", () => {
    const comma = parseRoleFile("a.md", "---\nname: a\ndescription: d\ntools: Read, Write, Bash\n---\n");
    const list = parseRoleFile("a.md", "---\nname: a\ndescription: d\ntools:\n  - Read\n  - Write\n  - Bash\n---\n");
    if (comma.kind !== "role" || list.kind !== "role") throw new Error("did not load");
    expect(comma.fields.tools).toEqual(["Read", "Write", "Bash"]);
    expect(roleToolAccess(comma.fields)).toEqual(roleToolAccess(list.fields));
    expect(toolWarnings(list.fields.tools).map((m) => m.name)).toEqual([]);
    expect(roleToolAccess(list.fields).permissions).toEqual(["read", "write", "execute"]);
  });
});

describe.skipIf(files.length === 0)("the corpus's tools: values", () => {
  const roles = files.map((file) => {
    const role = parseRoleFile(file, readFileSync(path.join(CORPUS, file)));
    if (role.kind !== "role") throw new Error(`${file}: ${role.error.message}`);
    return role;
  });
  const withTools = roles.filter((r) => r.fields.tools !== undefined);

  it("every value maps without throwing, and the unknowns are counted", () => {
    expect(withTools.length).toBeGreaterThanOrEqual(15);
    const counts: Record<string, number> = {};
    const unknown = new Set<string>();
    for (const role of withTools) {
      const access = roleToolAccess(role.fields);
      expect(access.mappings.map((m) => m.name)).toEqual(role.fields.tools);
      for (const m of access.mappings) {
        counts[m.kind] = (counts[m.kind] ?? 0) + 1;
        if (m.kind === "unknown") unknown.add(m.name);
      }
    }
    // The corpus names only Claude Code tools: nothing is unknown; Bash now maps (run_command).
    expect([...unknown]).toEqual([]);
    expect(counts.mapped).toBeGreaterThan(40);
    expect(counts.unavailable).toBeGreaterThanOrEqual(1);
    expect(counts.mcp).toBe(3);
  });

  it("a Read, Grep, Glob role reads but cannot write; a Read, Write, Bash, WebFetch role writes, executes and warns once", () => {
    const find = (tools: string) => withTools.find((r) => r.fields.tools?.join(", ") === tools);
    const reader = find("Read, Grep, Glob");
    expect(reader && roleToolAccess(reader.fields).file_tools).toEqual(["list_files", "read_file", "search_files"]);
    const writer = find("Read, Write, Bash, WebFetch");
    expect(writer && roleToolAccess(writer.fields).file_tools).toContain("write_file");
    expect(writer && roleToolAccess(writer.fields).permissions).toContain("execute");
    expect(writer && toolWarnings(writer.fields.tools).map((m) => m.name)).toEqual(["WebFetch"]);
  });

  it("the roles without tools: keep the defaults", () => {
    const without = roles.filter((r) => r.fields.tools === undefined);
    expect(without.length).toBeGreaterThan(100);
    for (const role of without) expect(roleToolAccess(role.fields).source).toBe("permissions");
    // arm-cortex-expert writes `tools: []`.
    expect(roleToolAccess(roles.find((r) => r.id === "arm-cortex-expert")!.fields).source).toBe("permissions");
  });
});

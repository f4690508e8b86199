import { beforeEach, describe, expect, it } from "vitest";
import { AgentTokens, describeToken, scopesFor } from "./permissions";

const PROJECT = "/tmp/astrion-project";
const reader = { conversation_id: "conv_a", agent_id: 1, role_id: "code-reviewer", permissions: ["read"], project_path: PROJECT };
const writer = { conversation_id: "conv_a", agent_id: 2, role_id: "full-stack-engineer", permissions: ["read", "write"], project_path: PROJECT };

/** Every test has tokens of its own. */
let tokens = new AgentTokens();
beforeEach(() => {
  tokens = new AgentTokens();
});

describe("scopes", () => {
  it("gives project:write only with the write permission", () => {
    expect(scopesFor(["read"])).not.toContain("project:write");
    expect(scopesFor(["read", "write"])).toContain("project:write");
    expect(scopesFor([])).toEqual(["project:read", "message:leader", "message:teammates", "shared_context:read", "shared_context:write", "tools:mcp", "gateway:call"]);
  });

  it("checks the scope the tool names, whatever the tool is called", () => {
    const t = tokens.issue(reader);
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "gw__orders__getOrder", scope: "gateway:call" })).toEqual({ ok: true, scope: "gateway:call" });
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "mcp__orders__x", scope: "tools:mcp" })).toEqual({ ok: true, scope: "tools:mcp" });
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "anything", scope: "project:execute" })).toMatchObject({ ok: false, code: "missing_scope", scope: "project:execute" });
    tokens.revoke("conv_a", 1);
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "gw__orders__getOrder", scope: "gateway:call" })).toMatchObject({ ok: false, code: "revoked" });
  });

  it("confines the path only of a tool that says its path is in the project", () => {
    const t = tokens.issue(reader);
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true, args: { path: "../x" } })).toMatchObject({ ok: false, code: "outside_project" });
    // An MCP tool's `path` is the server's business (its own roots), not the project folder's.
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "mcp__fs__read", scope: "tools:mcp", args: { path: "../x" } }).ok).toBe(true);
  });
});

describe("AgentTokens.check", () => {
  it("lets a read-only role read but not write", () => {
    const t = tokens.issue(reader);
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true, args: { path: "src/a.ts" } })).toEqual({ ok: true, scope: "project:read" });
    const denied = tokens.check(t, { conversation_id: "conv_a", tool: "write_file", scope: "project:write", confined: true, args: { path: "src/a.ts", content: "x" } });
    expect(denied).toMatchObject({ ok: false, code: "missing_scope", scope: "project:write" });
    expect(!denied.ok && denied.reason).toBe("permission denied: write_file needs project:write; role code-reviewer has project:read");
  });

  it("lets a role with write write inside the project", () => {
    const t = tokens.issue(writer);
    expect(tokens.check(t.token, { conversation_id: "conv_a", agent_id: 2, tool: "write_file", scope: "project:write", confined: true, args: { path: "src/new.ts" } }).ok).toBe(true);
  });

  it("refuses a token of conversation A in conversation B, and another agent's token", () => {
    const t = tokens.issue(reader);
    expect(tokens.check(t, { conversation_id: "conv_b", tool: "read_file", scope: "project:read", confined: true, args: { path: "a" } })).toMatchObject({ ok: false, code: "wrong_conversation" });
    expect(tokens.check(t, { conversation_id: "conv_a", agent_id: 7, tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "wrong_agent" });
  });

  it("refuses revoked, expired, unknown and missing tokens", () => {
    const t = tokens.issue(reader);
    const other = tokens.issue(writer);
    expect(tokens.revoke("conv_a", 1)).toBe(1);
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "revoked" });
    expect(tokens.check(other, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true }).ok).toBe(true);
    expect(tokens.revoke("conv_a")).toBe(1);
    expect(tokens.check(other, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "revoked" });

    const short = tokens.issue({ ...reader, agent_id: 3 }, { now: 1000, ttlMs: 500 });
    expect(tokens.check(short, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true }, 1400).ok).toBe(true);
    expect(tokens.check(short, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true }, 1500)).toMatchObject({ ok: false, code: "expired" });

    expect(tokens.check("agt_forged", { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "unknown_token" });
    expect(tokens.check(undefined, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "no_token" });
  });

  it("refuses a copy of a token object once the registry's record is revoked", () => {
    const t = tokens.issue(writer);
    const copy = { ...t, revoked_at: null };
    tokens.revoke("conv_a", 2);
    expect(tokens.check(copy, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "revoked" });
  });

  it.each(["../x", "../../etc/passwd", "/etc/passwd", "src/../../x", "a\0b"])("refuses the path %s outside the project folder", (p) => {
    const t = tokens.issue(writer);
    const r = tokens.check(t, { conversation_id: "conv_a", tool: "write_file", scope: "project:write", confined: true, args: { path: p, content: "pwned" } });
    expect(r).toMatchObject({ ok: false, code: "outside_project" });
  });

  it.each([".", "src/../README.md", "..hidden/file", `${PROJECT}/src/a.ts`])("accepts the path %s inside the project folder", (p) => {
    const t = tokens.issue(reader);
    expect(tokens.check(t, { conversation_id: "conv_a", tool: "list_files", scope: "project:read", confined: true, args: { path: p } }).ok).toBe(true);
  });
});

describe("token lifecycle", () => {
  it("keeps one live token per agent: issuing again revokes the previous one", () => {
    const first = tokens.issue(reader);
    const second = tokens.issue(reader);
    expect(second.token).not.toBe(first.token);
    expect(tokens.check(first, { conversation_id: "conv_a", tool: "read_file", scope: "project:read", confined: true })).toMatchObject({ ok: false, code: "revoked" });
    expect(tokens.get("conv_a", 1)?.token).toBe(second.token);
  });

  it("ensure reuses a live token and replaces one whose permissions changed", () => {
    const a = tokens.ensure(reader);
    expect(tokens.ensure(reader).token).toBe(a.token);
    const upgraded = tokens.ensure({ ...reader, permissions: ["read", "write"] });
    expect(upgraded.token).not.toBe(a.token);
    expect(upgraded.scopes).toContain("project:write");
    tokens.revoke("conv_a", 1);
    expect(tokens.get("conv_a", 1)).toBeUndefined();
    expect(tokens.ensure(reader).token).not.toBe(upgraded.token);
  });

  it("describes a token without its whole id", () => {
    const t = tokens.issue(reader);
    const d = describeToken(t);
    expect(d.token_hint.length).toBeLessThan(t.token.length);
    expect(JSON.stringify(d)).not.toContain(t.token);
  });
});

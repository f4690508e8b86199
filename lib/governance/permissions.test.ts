import { afterEach, describe, expect, it } from "vitest";
import {
  agentToken,
  checkToolCall,
  describeToken,
  ensureAgentToken,
  issueAgentToken,
  resetAgentTokensForTests,
  revokeAgentTokens,
  scopesFor,
  TOOL_SCOPES,
  toolScope,
} from "./permissions";

const PROJECT = "/tmp/astrion-project";
const reader = { conversation_id: "conv_a", agent_id: 1, role_id: "code-reviewer", permissions: ["read"], project_path: PROJECT };
const writer = { conversation_id: "conv_a", agent_id: 2, role_id: "full-stack-engineer", permissions: ["read", "write"], project_path: PROJECT };

afterEach(() => resetAgentTokensForTests());

describe("scopes", () => {
  it("gives project:write only with the write permission", () => {
    expect(scopesFor(["read"])).not.toContain("project:write");
    expect(scopesFor(["read", "write"])).toContain("project:write");
    expect(scopesFor([])).toEqual(["project:read", "message:leader", "message:teammates", "shared_context:read", "shared_context:write", "tools:mcp", "gateway:call"]);
  });

  it("lets every live token call recall_memory (a read, like the project's), and nothing named like it", () => {
    expect(toolScope("recall_memory")).toBe("project:read");
    expect(toolScope("recall_memory_all")).toBeUndefined();
    expect(checkToolCall(issueAgentToken(reader), { conversation_id: "conv_a", tool: "recall_memory" })).toEqual({ ok: true, scope: "project:read" });
  });

  it("gives gateway tools (gw__<source>__<op>) the gateway:call scope, and nothing to look-alikes", () => {
    expect(toolScope("gw__orders__getOrder")).toBe("gateway:call");
    expect(toolScope("gw____getOrder")).toBeUndefined();
    expect(toolScope("gw__orders")).toBeUndefined();
    expect(toolScope("mcp__orders__x")).toBe("tools:mcp");
    expect(toolScope("constructor")).toBeUndefined();
    const t = issueAgentToken(reader);
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "gw__orders__getOrder" })).toEqual({ ok: true, scope: "gateway:call" });
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "mcp__orders__x" })).toEqual({ ok: true, scope: "tools:mcp" });
    revokeAgentTokens("conv_a", 1);
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "gw__orders__getOrder" })).toMatchObject({ ok: false, code: "revoked" });
  });

  it("maps every sub-agent tool to one scope", () => {
    expect(TOOL_SCOPES).toMatchObject({
      list_files: "project:read",
      read_file: "project:read",
      search_files: "project:read",
      write_file: "project:write",
      send_message: "message:teammates",
      report_to_leader: "message:leader",
      ask_master: "message:leader",
      read_shared_context: "shared_context:read",
      update_shared_context: "shared_context:write",
    });
  });
});

describe("checkToolCall", () => {
  it("lets a read-only role read but not write", () => {
    const t = issueAgentToken(reader);
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "read_file", args: { path: "src/a.ts" } })).toEqual({ ok: true, scope: "project:read" });
    const denied = checkToolCall(t, { conversation_id: "conv_a", tool: "write_file", args: { path: "src/a.ts", content: "x" } });
    expect(denied).toMatchObject({ ok: false, code: "missing_scope", scope: "project:write" });
    expect(!denied.ok && denied.reason).toBe("permission denied: write_file needs project:write; role code-reviewer has project:read");
  });

  it("lets a role with write write inside the project", () => {
    const t = issueAgentToken(writer);
    expect(checkToolCall(t.token, { conversation_id: "conv_a", agent_id: 2, tool: "write_file", args: { path: "src/new.ts" } }).ok).toBe(true);
  });

  it("refuses a token of conversation A in conversation B, and another agent's token", () => {
    const t = issueAgentToken(reader);
    expect(checkToolCall(t, { conversation_id: "conv_b", tool: "read_file", args: { path: "a" } })).toMatchObject({ ok: false, code: "wrong_conversation" });
    expect(checkToolCall(t, { conversation_id: "conv_a", agent_id: 7, tool: "read_file" })).toMatchObject({ ok: false, code: "wrong_agent" });
  });

  it("refuses revoked, expired, unknown and missing tokens", () => {
    const t = issueAgentToken(reader);
    const other = issueAgentToken(writer);
    expect(revokeAgentTokens("conv_a", 1)).toBe(1);
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "read_file" })).toMatchObject({ ok: false, code: "revoked" });
    expect(checkToolCall(other, { conversation_id: "conv_a", tool: "read_file" }).ok).toBe(true);
    expect(revokeAgentTokens("conv_a")).toBe(1);
    expect(checkToolCall(other, { conversation_id: "conv_a", tool: "read_file" })).toMatchObject({ ok: false, code: "revoked" });

    const short = issueAgentToken({ ...reader, agent_id: 3 }, { now: 1000, ttlMs: 500 });
    expect(checkToolCall(short, { conversation_id: "conv_a", tool: "read_file" }, 1400).ok).toBe(true);
    expect(checkToolCall(short, { conversation_id: "conv_a", tool: "read_file" }, 1500)).toMatchObject({ ok: false, code: "expired" });

    expect(checkToolCall("agt_forged", { conversation_id: "conv_a", tool: "read_file" })).toMatchObject({ ok: false, code: "unknown_token" });
    expect(checkToolCall(undefined, { conversation_id: "conv_a", tool: "read_file" })).toMatchObject({ ok: false, code: "no_token" });
  });

  it("refuses a copy of a token object once the registry's record is revoked", () => {
    const t = issueAgentToken(writer);
    const copy = { ...t, revoked_at: null };
    revokeAgentTokens("conv_a", 2);
    expect(checkToolCall(copy, { conversation_id: "conv_a", tool: "read_file" })).toMatchObject({ ok: false, code: "revoked" });
  });

  it("refuses tools a sub-agent has no scope for", () => {
    const t = issueAgentToken(writer);
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "create_sub_agent" })).toMatchObject({ ok: false, code: "unknown_tool" });
  });

  it.each(["../x", "../../etc/passwd", "/etc/passwd", "src/../../x", "a\0b"])("refuses the path %s outside the project folder", (p) => {
    const t = issueAgentToken(writer);
    const r = checkToolCall(t, { conversation_id: "conv_a", tool: "write_file", args: { path: p, content: "pwned" } });
    expect(r).toMatchObject({ ok: false, code: "outside_project" });
  });

  it.each([".", "src/../README.md", "..hidden/file", `${PROJECT}/src/a.ts`])("accepts the path %s inside the project folder", (p) => {
    const t = issueAgentToken(reader);
    expect(checkToolCall(t, { conversation_id: "conv_a", tool: "list_files", args: { path: p } }).ok).toBe(true);
  });
});

describe("token lifecycle", () => {
  it("keeps one live token per agent: issuing again revokes the previous one", () => {
    const first = issueAgentToken(reader);
    const second = issueAgentToken(reader);
    expect(second.token).not.toBe(first.token);
    expect(checkToolCall(first, { conversation_id: "conv_a", tool: "read_file" })).toMatchObject({ ok: false, code: "revoked" });
    expect(agentToken("conv_a", 1)?.token).toBe(second.token);
  });

  it("ensureAgentToken reuses a live token and replaces one whose permissions changed", () => {
    const a = ensureAgentToken(reader);
    expect(ensureAgentToken(reader).token).toBe(a.token);
    const upgraded = ensureAgentToken({ ...reader, permissions: ["read", "write"] });
    expect(upgraded.token).not.toBe(a.token);
    expect(upgraded.scopes).toContain("project:write");
    revokeAgentTokens("conv_a", 1);
    expect(agentToken("conv_a", 1)).toBeUndefined();
    expect(ensureAgentToken(reader).token).not.toBe(upgraded.token);
  });

  it("describes a token without its whole id", () => {
    const t = issueAgentToken(reader);
    const d = describeToken(t);
    expect(d.token_hint.length).toBeLessThan(t.token.length);
    expect(JSON.stringify(d)).not.toContain(t.token);
  });
});

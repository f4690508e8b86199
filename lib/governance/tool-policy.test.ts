import { describe, expect, it } from "vitest";
import { ConversationApprovalPolicySchema, decideToolPolicy, defaultPolicy, policyFor, ToolPolicySchema } from "./tool-policy";

describe("the approval policy", () => {
  it("asks before tools that write or execute and allows the others by default", () => {
    expect(defaultPolicy("write")).toBe("ask");
    expect(defaultPolicy("execute")).toBe("ask");
    expect(defaultPolicy("read")).toBe("allow");
    expect(defaultPolicy("internal")).toBe("allow");
    expect(decideToolPolicy({ tool: "write_file", effect: "write", role: {} })).toEqual({ decision: "ask", source: "default" });
    expect(decideToolPolicy({ tool: "read_file", effect: "read", role: {} })).toEqual({ decision: "allow", source: "default" });
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "ls", role: {} })).toEqual({ decision: "ask", source: "default" });
  });

  it("takes the role's policy per tool, the exact name over a pattern, the longer pattern over a shorter", () => {
    const tool_policy = { "mcp__*": "deny", "mcp__github__*": "ask", mcp__github__get_issue: "allow", write_file: "allow" } as const;
    expect(decideToolPolicy({ tool: "write_file", effect: "write", role: { tool_policy } }).decision).toBe("allow");
    expect(decideToolPolicy({ tool: "mcp__github__get_issue", effect: "read", role: { tool_policy } }).decision).toBe("allow");
    expect(decideToolPolicy({ tool: "mcp__github__create_issue", effect: "write", role: { tool_policy } })).toEqual({ decision: "ask", source: "role_policy", pattern: "mcp__github__*" });
    expect(decideToolPolicy({ tool: "mcp__postgres__query", effect: "read", role: { tool_policy } })).toEqual({ decision: "deny", source: "role_policy", pattern: "mcp__*" });
    expect(policyFor({ "*": "deny" }, "constructor")).toEqual({ pattern: "*", value: "deny" });
    expect(policyFor({}, "__proto__")).toBeUndefined();
  });

  it("runs an allow-listed command without asking, per role or per conversation", () => {
    const role = { allowed_commands: ["npm test", "npm run lint*"] };
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm run lint --fix", role })).toEqual({ decision: "allow", source: "role_commands" });
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm test; rm -rf /", role }).decision).toBe("ask");
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "make", role, conversation: { allowed_commands: ["make"] } })).toEqual({ decision: "allow", source: "conversation_commands" });
  });

  it("never lets a conversation or an allow-list override the role's deny", () => {
    const role = { tool_policy: { run_command: "deny" }, allowed_commands: ["npm test"] } as const;
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm test", role, conversation: { allowed_commands: ["npm test"], tool_policy: { run_command: "allow" } } }).decision).toBe("deny");
  });

  it("lets the conversation's 'always allow' allow a tool the role would ask about", () => {
    expect(decideToolPolicy({ tool: "write_file", effect: "write", role: { tool_policy: { write_file: "ask" } }, conversation: { tool_policy: { write_file: "allow" } } })).toEqual({ decision: "allow", source: "conversation_policy", pattern: "write_file" });
  });

  it("has schemas that refuse malformed policies", () => {
    expect(ToolPolicySchema.safeParse({ write_file: "maybe" }).success).toBe(false);
    expect(ToolPolicySchema.safeParse({ "../x": "allow" }).success).toBe(false);
    expect(ConversationApprovalPolicySchema.parse({})).toEqual({ allowed_commands: [], tool_policy: {} });
  });
});

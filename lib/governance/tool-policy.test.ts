import { describe, expect, it } from "vitest";
import { ToolPolicySchema } from "@/lib/roles/policy-schema";
import { ConversationApprovalPolicySchema, decideToolPolicy, defaultPolicy, policyFor } from "./tool-policy";

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

  const clean = { agentChangedProject: false };
  const changed = { agentChangedProject: true };

  it("runs an allow-listed command without asking, per role or per conversation, while no agent changed the project", () => {
    const role = { allowed_commands: ["npm test", "npm run lint*"] };
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm run lint --fix", role, commandContext: clean })).toEqual({ decision: "allow", source: "role_commands", hardened: true });
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm test; rm -rf /", role, commandContext: clean }).decision).toBe("ask");
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "make", role, conversation: { allowed_commands: ["make"] }, commandContext: clean })).toEqual({ decision: "allow", source: "conversation_commands", hardened: true });
  });

  it("asks again before an allow-listed command runs project code an agent may have changed", () => {
    const role = { tool_policy: { write_file: "allow" }, allowed_commands: ["npm test", "git status*", "ls*"] } as const;
    const held = decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm test", role, commandContext: changed });
    expect(held).toMatchObject({ decision: "ask", source: "default", held: { code: "agent_changed_files", detail: "npm test" } });
    // Without a context the policy takes the safe side.
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm test", role }).decision).toBe("ask");
    // Read-only programs and git (run hardened) do not run project code.
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "ls -la && git status", role, commandContext: changed })).toEqual({ decision: "allow", source: "role_commands", hardened: true });
    // The conversation's allow-list is held the same way.
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "make", role: {}, conversation: { allowed_commands: ["make"] }, commandContext: changed }).held?.code).toBe("agent_changed_files");
  });

  it("runs an entry that trusts agent-written code after changes, and only that entry", () => {
    const role = { allowed_commands: [{ pattern: "npm run build", trust_agent_code: true }, "npm test"] };
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm run build", role, commandContext: changed }).decision).toBe("allow");
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm run build && npm test", role, commandContext: changed }).decision).toBe("ask");
  });

  it("asks before git where the repository cannot be vouched for", () => {
    const role = { allowed_commands: ["git status*", "ls"] };
    const gitRefusal = { code: "git_repository_new", message: "made after the conversation started" } as const;
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "git status", role, commandContext: { agentChangedProject: false, gitRefusal } })).toMatchObject({ decision: "ask", held: gitRefusal });
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "ls", role, commandContext: { agentChangedProject: false, gitRefusal } }).decision).toBe("allow");
  });

  it("leaves a role that allows run_command outright as it is (the person said so)", () => {
    const role = { tool_policy: { run_command: "allow" }, allowed_commands: ["npm test"] } as const;
    expect(decideToolPolicy({ tool: "run_command", effect: "execute", command: "npm test", role, commandContext: changed })).toMatchObject({ decision: "allow", source: "role_policy" });
  });

  it("reads allow-list entries as patterns or objects, and refuses other shapes", () => {
    expect(ConversationApprovalPolicySchema.safeParse({ allowed_commands: ["npm test", { pattern: "make", trust_agent_code: true }] }).success).toBe(true);
    expect(ConversationApprovalPolicySchema.safeParse({ allowed_commands: [{ pattern: "make", trust: true }] }).success).toBe(false);
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

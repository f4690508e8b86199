import { describe, expect, it } from "vitest";
import { AGENT_ACTION_KINDS } from "@/lib/contracts/events";
import { KNOWLEDGE_TOOL } from "@/lib/knowledge/tool";
import { toolAction } from "@/lib/tools";
import { toolNamed, toolsOf, TOOLS } from "./index";

/** What a call of the registered tool `name` with `args` is doing. */
const act = (name: string, args: unknown) => toolAction(toolNamed(name), name, args);

describe("what a tool call is doing (the tool object's action descriptor)", () => {
  it("names the target of each sub-agent tool from its arguments", () => {
    expect(act("read_file", { path: "dist/pregel/loop.js" })).toEqual({ kind: "read", target: "dist/pregel/loop.js" });
    expect(act("search_files", { query: "createGraph" })).toEqual({ kind: "search", target: "createGraph" });
    expect(act("run_command", { command: "npm test" })).toEqual({ kind: "run", target: "npm test" });
    expect(act("write_file", { path: "src/x.ts", content: "…" })).toEqual({ kind: "write", target: "src/x.ts" });
    expect(act("list_files", { path: "." })).toEqual({ kind: "list", target: "." });
    expect(act("ask_master", { question: "Which port?" })).toEqual({ kind: "ask_leader", target: "Which port?" });
    expect(act("report_to_leader", { summary: "done" })).toEqual({ kind: "report" });
    expect(act("send_message", { agent_id: 4, content: "hi" })).toEqual({ kind: "message", target: "4" });
    expect(act("update_shared_context", "{}")).toEqual({ kind: "shared_write" });
    expect(toolAction(KNOWLEDGE_TOOL, KNOWLEDGE_TOOL.name, { query: "max_retries" })).toEqual({ kind: "search", target: "max_retries" });
  });

  it("says 'using <tool>' for a tool without an action (MCP, gateway) and keeps a long target to one short line", () => {
    expect(act("mcp__github__create_issue", { title: "x" })).toEqual({ kind: "tool", target: "mcp__github__create_issue" });
    const long = act("run_command", { command: `echo ${"a".repeat(300)}\n  && ls` });
    expect(long.target!.length).toBe(120);
    expect(long.target!.endsWith("…")).toBe(true);
    expect(long.target).not.toContain("\n");
    // An argument missing or of the wrong type: the kind alone.
    expect(act("read_file", {})).toEqual({ kind: "read" });
    expect(act("read_file", null)).toEqual({ kind: "read" });
  });

  it("every tool a sub-agent is offered says what it does, with a known kind and a real argument", () => {
    const kinds: ReadonlySet<string> = new Set(AGENT_ACTION_KINDS);
    for (const tool of [...toolsOf("agent", ["read", "write", "execute"]), ...TOOLS.filter((t) => t.audience === "both")]) {
      expect(tool.action, tool.name).toBeDefined();
      expect(kinds.has(tool.action!.kind), tool.name).toBe(true);
      if (tool.action!.target !== undefined) expect(Object.keys(tool.args.shape), tool.name).toContain(tool.action!.target);
    }
  });
});

/**
 * The built-in tool providers as objects: which party finds which tool by name, and what each
 * tool object says of itself (the token scope it needs, its effect, whether a person's approval
 * policy applies, whether its path is confined to the project). Pinned: a tool that changes
 * scope, effect or approval is a deliberate change. Names a model might invent (inherited object
 * keys) find nothing. The providers that read the conversation to resolve (MCP, gateway,
 * abilities) are driven through a run in lib/runtime/team/pipeline.test.ts and the integration tests.
 */
import { describe, expect, it } from "vitest";
import type { TeamState } from "@/lib/runtime/team/state";
import type { ToolQuery } from "@/lib/runtime/team/tool-kit";
import type { AgentMeta } from "@/lib/runtime/team/types";
import { commandTools } from "./commands";
import { builtInToolProviders } from "./index";
import { knowledgeTools } from "./knowledge";
import { memoryTools } from "./memory";
import { sharedContextTools } from "./shared-context";
import { agentTeamTools } from "./team-agent";
import { leaderTeamTools } from "./team-leader";
import { workspaceTools } from "./workspace";

// Resolving a name by these providers reads neither the state nor the agent's files.
const s = undefined as unknown as TeamState;
const meta = { agent_id: 1, role_id: "researcher", display_name: "Researcher_1", permissions: ["read"] } as unknown as AgentMeta;
const AGENT: ToolQuery = { s, caller: { agentId: 1, meta } };
const LEADER: ToolQuery = { s, caller: { agentId: null, meta: null } };
const STATIC = [leaderTeamTools, agentTeamTools, workspaceTools, commandTools, sharedContextTools, memoryTools, knowledgeTools];

async function find(name: string, q: ToolQuery) {
  for (const p of STATIC) {
    const tool = await p.resolve(name, q);
    if (tool) return tool;
  }
  return undefined;
}

describe("the built-in tool providers", () => {
  it("give each sub-agent tool its scope, effect, approval and confinement", async () => {
    const table: Record<string, unknown> = {};
    for (const name of ["report_to_leader", "ask_master", "send_message", "list_files", "read_file", "search_files", "write_file", "run_command", "read_shared_context", "update_shared_context", "recall_memory", "search_knowledge"]) {
      const t = (await find(name, AGENT))!;
      table[name] = [t.scope, t.effect, t.approval, t.confined === true];
    }
    expect(table).toEqual({
      report_to_leader: ["message:leader", "internal", true, false],
      ask_master: ["message:leader", "read", true, false],
      send_message: ["message:teammates", "internal", true, false],
      list_files: ["project:read", "read", true, true],
      read_file: ["project:read", "read", true, true],
      search_files: ["project:read", "read", true, true],
      write_file: ["project:write", "write", true, true],
      run_command: ["project:execute", "execute", true, false],
      read_shared_context: ["shared_context:read", "read", true, false],
      update_shared_context: ["shared_context:write", "internal", true, false],
      recall_memory: ["project:read", "read", true, false],
      search_knowledge: ["project:read", "read", true, false],
    });
  });

  it("give the leader its own tools, none of which asks a person, and none of the sub-agents'", async () => {
    for (const name of ["create_sub_agent", "send_message_to_agent", "answer_question", "terminate_agent", "broadcast", "list_agents", "read_shared_context", "update_shared_context", "recall_memory"]) {
      expect((await find(name, LEADER))?.approval, name).toBe(false);
    }
    for (const name of ["report_to_leader", "ask_master", "read_file", "write_file", "run_command", "search_knowledge"]) expect(await find(name, LEADER), name).toBeUndefined();
  });

  it("find none of the leader's tools for a sub-agent but create_sub_agent, which is refused before it runs", async () => {
    for (const name of ["send_message_to_agent", "answer_question", "terminate_agent", "broadcast", "list_agents"]) expect(await find(name, AGENT), name).toBeUndefined();
    const spawn = (await find("create_sub_agent", AGENT))!;
    expect(spawn.journal).toBe(false);
    expect(spawn.authorize).toBeDefined();
  });

  it("find nothing under an inherited object key", async () => {
    for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]) {
      expect(await find(name, AGENT), name).toBeUndefined();
      expect(await find(name, LEADER), name).toBeUndefined();
    }
  });

  it("are offered in the order the composition root lists them, sub-agents' and leader's", () => {
    const built = builtInToolProviders();
    expect(built.leader.map((p) => p.name)).toEqual(["team (leader)", "shared context", "memory"]);
    expect(built.agent.map((p) => p.name)).toEqual(["team (sub-agent)", "workspace", "commands", "shared context", "memory", "mcp", "abilities", "gateway", "knowledge"]);
  });
});

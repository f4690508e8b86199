import "server-only";
/**
 * The tool providers the composition root gives the engine: the Team Leader's (its team tools,
 * the shared context, memory) and a sub-agent's (its team tools, the project folder, commands,
 * the shared context, memory, MCP servers, teammates' abilities, the gateway, knowledge), in the
 * order their tools are offered. Each returns tool objects (lib/runtime/team/tool-kit.ts) that the
 * one pipeline runs; a new tool is a new object in one of these files, or a new provider here.
 */
import type { ToolProviders } from "@/lib/runtime/team/tool-kit";
import { abilityTools } from "./abilities";
import { commandTools } from "./commands";
import { gatewayTools } from "./gateway";
import { knowledgeTools } from "./knowledge";
import { mcpTools } from "./mcp";
import { memoryTools } from "./memory";
import { sharedContextTools } from "./shared-context";
import { agentTeamTools } from "./team-agent";
import { leaderTeamTools } from "./team-leader";
import { workspaceTools } from "./workspace";

export { RECALL_MEMORY } from "./memory";

/** Every built-in provider, for each party. */
export function builtInToolProviders(): ToolProviders {
  return {
    leader: [leaderTeamTools, sharedContextTools, memoryTools],
    agent: [agentTeamTools, workspaceTools, commandTools, sharedContextTools, memoryTools, mcpTools, abilityTools, gatewayTools, knowledgeTools],
  };
}

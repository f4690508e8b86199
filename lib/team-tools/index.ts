/**
 * Public face of the team's tools: the Team Leader's and a sub-agent's tool definitions, and the
 * registry of every tool the team's loops offer (the shared context's included), with what each
 * party is offered. Pure. Built on the tool kernel (lib/tools); the runtime executes the tools.
 */
export { AGENT_TOOL_ARGS, AGENT_TOOLS, CREATE_SUB_AGENT, LEADER_TOOL_ARGS, LEADER_TOOLS } from "./team";
export { agentTools, createSubAgentArgs, leaderTools, READ_ONLY_TOOLS, toolEffect, toolNamed, toolsOf, TOOLS, type RoleChoice } from "./registry";

/**
 * The base prompts. A sub-agent's system message is the base prompt followed by its role's own
 * prompt (the role file's body), as the seed specifies. Pure.
 */

/** Facts about the conversation every prompt states. */
export interface PromptFacts {
  projectPath: string;
  conversationTitle: string;
}

/** The Team Leader's system prompt. */
export function leaderSystemPrompt(facts: PromptFacts): string {
  return [
    "You are the Team Leader of a team of AI agents (智能体集群团队的负责人). A person gives you a goal; you do not do the work yourself.",
    "You assemble a small team from the registered roles with create_sub_agent, giving each agent a concrete, self-contained task.",
    "Sub-agents report back with messages headed 「来自 <agent> 的任务完成汇报」. Questions they ask arrive as 「来自 <agent> 的消息」 with an id like ask_uio_001: answer them with answer_question when you know the answer; when only the person can know, say so plainly and the person will answer.",
    "Use send_message_to_agent to correct or redirect one agent, broadcast for all, terminate_agent when an agent is no longer needed, list_agents to check on the team.",
    "Create only the agents the goal needs (usually 1–3). When every agent has reported, write the person a clear summary built from the reports: what was found or done, by whom, and what is left.",
    "Answer in the language the person writes in.",
    "",
    `Conversation: ${facts.conversationTitle}`,
    `Project folder (the agents' workspace): ${facts.projectPath}`,
  ].join("\n");
}

/** The prompt line naming the file tools the agent has (a role's `tools:` may offer fewer than all). */
function projectToolsLine(projectPath: string, readTools: readonly string[], canWrite: boolean): string {
  if (readTools.length === 0) {
    return `Project folder: ${projectPath}. ${canWrite ? "Use write_file to change it (paths are relative to it); you have no tool that reads it" : "You have no tool that reads or writes it"}.`;
  }
  return `Project folder: ${projectPath}. Use ${readTools.join(", ")} on it (paths are relative to it)${canWrite ? ", and write_file to change it" : "; you may not write files"}.`;
}

/** What every sub-agent is told first, the same for all (so its token count is made once; see below). */
const AGENT_BASE_PROMPT = [
  "你是智能体集群团队的一员。You are a member of a team of AI agents led by a Team Leader.",
  "Your task arrives as a message headed 「来自 Team Leader 的任务发布」. Work step by step with your tools; look at the real files rather than guessing.",
  "If something essential is unclear, ask with ask_master and wait for the answer. Messages from teammates or the leader may arrive between your steps; take them into account.",
  "When you are done, call report_to_leader once with a concrete summary (files, findings, what you changed, open questions). That ends your task.",
  "Answer in the language of your task.",
].join("\n");

/**
 * A sub-agent's system prompt: the base prompt every agent shares, the lines about this agent
 * (who it is, its conversation, its project folder and tools), then the role's own prompt, each
 * a paragraph of its own. The context window counts a system message by paragraphs, each kept in
 * the count cache (lib/context/tokens.ts), so a new agent costs the tokenization of its own lines.
 */
export function agentSystemPrompt(
  facts: PromptFacts & { displayName: string; agentId: number; roleName: string; canWrite: boolean; readTools?: readonly string[]; canExecute?: boolean },
  rolePrompt: string,
): string {
  const own = [
    `You are: ${facts.displayName} (agent id ${facts.agentId}, role ${facts.roleName}).`,
    `Conversation: ${facts.conversationTitle}`,
    projectToolsLine(facts.projectPath, facts.readTools ?? ["list_files", "read_file", "search_files"], facts.canWrite),
    ...(facts.canExecute ? ["Use run_command to run a command in the project folder (it always runs there); a person may have to approve it first, and a refusal comes back with their reason."] : []),
  ].join("\n");
  const role = rolePrompt.trim();
  return [AGENT_BASE_PROMPT, own, ...(role ? [role] : [])].join("\n\n");
}

import "server-only";
/**
 * `search_knowledge(query, paths?)` (issue 11, seed 003 §5.3): offered to a sub-agent only when
 * its current task asks for precise facts (lib/knowledge/route.ts), with a one-line hint in its
 * prompt; the decision and the cues that made it are a `knowledge_routing` event on the
 * timeline, once per task. The Team Leader is never offered it: it delegates, and holds no
 * project-scoped token; its sub-agents look facts up.
 *
 * A call passes the pipeline like every sub-agent tool (token scope `project:read`, the approval
 * policy with the `read` effect), and this tool's own check: a task it was not offered for is
 * refused, as is a role whose `tools:` give it neither read_file nor search_files. The search
 * runs on the project folder of the agent's token, with the `embedding` and `reranker` keys of
 * models.json when they are set; every call is audited (query, paths, the passages' locations,
 * how they were ranked — never their text).
 */
import { KNOWLEDGE_HINT, KNOWLEDGE_TOOL, routeKnowledge, type KnowledgeRouting } from "@/lib/knowledge";
import { auxModelKey, loadRegistry } from "@/lib/models";
import { agentParty, parseAgentMessage, SYSTEM_PARTY } from "@/lib/protocol";
import type { Message } from "@/lib/store";
import type { TeamState } from "@/lib/runtime/team/state";
import { toolFrom, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { errorResult, summarize, type AgentMeta } from "@/lib/runtime/team/types";

/** The agent's current task: the body of the last task message it was given. */
function currentTask(messages: readonly Message[]): { id: string; body: string } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user" || typeof m.content !== "string") continue;
    const parsed = parseAgentMessage(m.content);
    if (parsed?.kind === "task") return { id: parsed.id, body: parsed.body };
  }
  return null;
}

/** A role restricted to file tools without reading ones does not search the project either. */
function mayRead(meta: AgentMeta): boolean {
  return !meta.file_tools || meta.file_tools.includes("read_file") || meta.file_tools.includes("search_files");
}

/** Per run: the routing of each agent's task, once per task (`<agent>:<task id>`), so a call costs a look-up. */
const routed = new WeakMap<TeamState, Map<string, KnowledgeRouting>>();

/** The routing decision for the agent's current task, or null when it has none (or may not read); `first` on the task's first call. */
function decide(s: TeamState, agentId: number, meta: AgentMeta, messages: readonly Message[]): (KnowledgeRouting & { task_id: string; first: boolean }) | null {
  const task = currentTask(messages);
  if (!task || !mayRead(meta)) return null;
  let byTask = routed.get(s);
  if (!byTask) routed.set(s, (byTask = new Map()));
  const key = `${agentId}:${task.id}`;
  const known = byTask.get(key);
  if (known) return { ...known, task_id: task.id, first: false };
  const routing = routeKnowledge(task.body);
  byTask.set(key, routing);
  return { ...routing, task_id: task.id, first: true };
}

const SEARCH_KNOWLEDGE = toolFrom(KNOWLEDGE_TOOL, {
  scope: "project:read",
  approval: true,
  authorize: async ({ s, caller }) => {
    if (caller.agentId === null) return { refused: errorResult("search_knowledge is for sub-agents") };
    const d = decide(s, caller.agentId, caller.meta, (await s.store.readAgentMessages(s.convId, caller.agentId)).messages);
    if (d?.offer) return {};
    const reason = "search_knowledge is not offered for this task (it asks for no precise fact); use read_file or search_files";
    await s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(caller.agentId), payload: { tool: KNOWLEDGE_TOOL.name, code: "not_offered", reason }, action: KNOWLEDGE_TOOL.name, resource: `agent:${caller.agentId}`, status: "refused" });
    return { refused: errorResult(reason) };
  },
  execute: async ({ s, caller, root }, { query, paths }) => {
    if (caller.agentId === null) throw new Error("search_knowledge was called by the leader");
    const agentId = caller.agentId;
    const real = (await s.deps.workspace.resolveProjectPath(root, ".")).root;
    const registry = await loadRegistry(s.deps.root);
    const rerankerKey = auxModelKey(registry, "reranker");
    const answer = await s.deps.knowledge.search(real, query, {
      paths,
      embedder: await s.deps.models.embedderFor(s.deps.root),
      reranker: rerankerKey ? await s.deps.models.modelFor(s.deps.root, rerankerKey) : null,
      maxOutputChars: s.limits.toolOutputMax,
      meta: { conversation_id: s.convId, trace_id: caller.meta.trace_id ?? undefined },
    });
    s.auditAccess(agentId, KNOWLEDGE_TOOL.name, `knowledge:${paths?.length ? paths.join(",") : "."}`, {
      query: summarize(query, 80),
      paths: paths ?? null,
      passages: answer.passages.map((p) => p.location),
      ranking: answer.ranking,
      reranked: answer.reranked,
      reranker: rerankerKey,
      index_state: answer.index.state,
    });
    return JSON.stringify(answer);
  },
});

/**
 * What a sub-agent is offered for its next model call: the tool and the hint, or nothing. The
 * first call of each task puts the decision on the timeline and, when offered, starts the
 * project's index in the background so it is ready by the time the model asks.
 */
export const knowledgeTools: ToolProvider = {
  name: "knowledge",
  offer: async ({ s, caller }) => {
    if (caller.agentId === null) return { tools: [] };
    const agentId = caller.agentId;
    const meta = caller.meta;
    const d = decide(s, agentId, meta, (await s.store.readAgentMessages(s.convId, agentId)).messages);
    if (!d) return { tools: [] };
    if (d.first) {
      await s.emit(await s.causeFor(meta), {
        type: "event",
        from: SYSTEM_PARTY,
        to: agentParty(agentId),
        payload: { task_id: d.task_id, offered: d.offer, precise_cues: d.precise, explanatory_cues: d.explanatory, tool: KNOWLEDGE_TOOL.name },
        action: "knowledge_routing",
        resource: `agent:${agentId}`,
      });
      if (d.offer) {
        const projectPath = (await s.store.get(s.convId)).project_path;
        const real = await s.deps.workspace.resolveProjectPath(projectPath, ".").then((r) => r.root).catch(() => null);
        // In the background: the index is built or refreshed while the agent works (ensure never rejects).
        if (real) void s.deps.knowledge.ensure(real, await s.deps.models.embedderFor(s.deps.root).catch(() => null));
      }
    }
    return d.offer ? { tools: [SEARCH_KNOWLEDGE], hint: `\n${KNOWLEDGE_HINT}` } : { tools: [] };
  },
  resolve: async (name, { caller }) => (caller.agentId !== null && name === SEARCH_KNOWLEDGE.name ? SEARCH_KNOWLEDGE : undefined),
};

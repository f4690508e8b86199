import "server-only";
/**
 * `recall_memory(query, limit?)`: an agent (or the leader) asks long-term memory explicitly. The
 * arguments are a zod schema (the JSON Schema a model sees is generated from it); the effect is
 * `read`. What comes back is filtered in code by the memory service's access rule for this
 * reader — the agent's role (the leader reads as `leader`) on the conversation's project folder —
 * and every call is audited on the timeline (`memory_recall` with the entry ids and levels, never
 * their text).
 */
import { z } from "zod";
import { LEADER_READER } from "@/lib/memory/distill";
import { defineTool } from "@/lib/tools";
import { memoryOf } from "@/lib/runtime/team/memory-port";
import { auditRecall, withCitations } from "@/lib/runtime/team/memory-recall";
import { toolFrom, type TeamTool, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { errorResult } from "@/lib/runtime/team/types";

/** The `recall_memory` tool's definition. */
export const RECALL_MEMORY = defineTool({
  name: "recall_memory",
  audience: "both",
  action: { kind: "recall", target: "query" },
  readOnly: true,
  description:
    "Search long-term memory: facts, preferences and open issues distilled from earlier conversations (only those you may read). Use it when earlier work may already answer a question. Each entry cites the conversation it came from.",
  args: z.object({
    query: z.string().trim().min(1).max(1000).describe("What to look for, in a few words."),
    limit: z.coerce.number().int().min(1).max(20).default(5).describe("How many entries at most (default 5)."),
  }),
});

function recallTool(approval: boolean): TeamTool {
  return toolFrom(RECALL_MEMORY, {
    // A read every agent may make, like reading the project: which entries it gets is the memory service's rule.
    scope: "project:read",
    approval,
    execute: async ({ s, caller }, args) => {
      const memory = await memoryOf(s.deps);
      if (!memory) return errorResult("long-term memory is not available");
      const reader = caller.agentId === null ? LEADER_READER : caller.meta.role_id;
      if (!reader) return errorResult("permission denied: this agent has no role to read memory as");
      const conv = await s.store.get(s.convId);
      const hits = await memory.recall({ text: args.query, reader: { project_path: conv.project_path || null, role_id: reader }, limit: args.limit });
      await auditRecall(s, caller.agentId, reader, "tool", hits);
      const cited = await withCitations(s, hits);
      return JSON.stringify({
        count: hits.length,
        entries: hits.map((h, i) => ({ id: h.entry.id, kind: h.entry.kind, level: h.entry.level, subject: h.entry.subject, statement: h.entry.statement, source: cited[i]!.source, score: Math.round(h.score * 1000) / 1000 })),
      });
    },
  });
}

const LEADER_TOOL = recallTool(false);
const AGENT_TOOL = recallTool(true);

/** `recall_memory`, for the leader and every sub-agent. */
export const memoryTools: ToolProvider = {
  name: "memory",
  offer: async ({ caller }) => ({ tools: [caller.agentId === null ? LEADER_TOOL : AGENT_TOOL] }),
  resolve: async (name, { caller }) => (name === RECALL_MEMORY.name ? (caller.agentId === null ? LEADER_TOOL : AGENT_TOOL) : undefined),
};

import "server-only";
/**
 * `recall_memory(query, limit?)`: an agent (or the leader) asks long-term memory explicitly. The
 * arguments are a zod schema in the tool-registry style (lib/tools `defineTool`; the JSON Schema a
 * model sees is generated from it); the effect is `read`. What comes back is filtered in code by
 * the memory service's access rule for this reader — the agent's role (the leader reads as
 * `leader`) on the conversation's project folder — and every call is audited on the timeline
 * (`memory_recall` with the entry ids and levels, never their text). The token check comes
 * first, in agent-tools.ts.
 */
import { z } from "zod";
import type { ToolCall, ToolSpec } from "@/lib/models";
import { LEADER_READER } from "@/lib/memory/distill";
import { defineTool, parseToolArguments, toolSpec } from "@/lib/tools";
import type { ApprovalGate } from "./approvals";
import { memoryOf } from "./memory-port";
import { auditRecall, withCitations } from "./memory-recall";
import type { TeamState } from "./state";
import { errorResult, summarize } from "./types";

/** The `recall_memory` tool. */
export const RECALL_MEMORY = defineTool({
  name: "recall_memory",
  audience: "both",
  readOnly: true,
  description:
    "Search long-term memory: facts, preferences and open issues distilled from earlier conversations (only those you may read). Use it when earlier work may already answer a question. Each entry cites the conversation it came from.",
  args: z.object({
    query: z.string().trim().min(1).max(1000).describe("What to look for, in a few words."),
    limit: z.coerce.number().int().min(1).max(20).default(5).describe("How many entries at most (default 5)."),
  }),
});

/** The memory tools offered to a model. */
export function memoryToolSpecs(): ToolSpec[] {
  return [toolSpec(RECALL_MEMORY)];
}

/** Whether `name` is a memory tool. */
export function isMemoryToolName(name: string): boolean {
  return name === RECALL_MEMORY.name;
}

/**
 * Runs `recall_memory` for the leader (`agentId` null) or a sub-agent whose token was checked;
 * `gate` is the approval policy of the agent's call (a read: allowed unless a policy says otherwise).
 */
export async function dispatchMemoryTool(s: TeamState, agentId: number | null, roleId: string | null, call: ToolCall, gate?: ApprovalGate): Promise<string | null> {
  const parsed = parseToolArguments(RECALL_MEMORY.args, call.function.arguments);
  if (!parsed.ok) return errorResult(parsed.error);
  if (gate) {
    const verdict = await gate(RECALL_MEMORY.effect);
    if (verdict.kind === "refused") return verdict.result;
    if (verdict.kind === "wait") return null;
  }
  const memory = await memoryOf(s.deps);
  if (!memory) return errorResult("long-term memory is not available");
  const reader = agentId === null ? LEADER_READER : roleId;
  if (!reader) return errorResult("permission denied: this agent has no role to read memory as");
  if (agentId !== null) s.setActivity(agentId, `recall_memory "${summarize(parsed.args.query, 40)}"`);
  const conv = await s.store.get(s.convId);
  const hits = await memory.recall({ text: parsed.args.query, reader: { project_path: conv.project_path || null, role_id: reader }, limit: parsed.args.limit });
  await auditRecall(s, agentId, reader, "tool", hits);
  const cited = await withCitations(s, hits);
  return JSON.stringify({
    count: hits.length,
    entries: hits.map((h, i) => ({ id: h.entry.id, kind: h.entry.kind, level: h.entry.level, subject: h.entry.subject, statement: h.entry.statement, source: cited[i]!.source, score: Math.round(h.score * 1000) / 1000 })),
  });
}

import "server-only";
/**
 * The executor of the shared-context tools offered to the Team Leader and to sub-agents (their
 * definitions are in ./tool-specs.ts). Arbitration happens in code: the model only proposes a write, and the
 * result it reads back says whether it was applied, refused (and why, with the value that won) or
 * is waiting for a person.
 */
import { AstrionError } from "@/lib/contracts/errors";
import { parseToolArguments } from "@/lib/tools/arguments";
import { timelineEventsOf, type SharedContextTimelineEvent } from "./events";
import type { Decision, SharedContextFile } from "./schema";
import { isSharedContextTool, SHARED_CONTEXT_TOOL_ARGS } from "./tool-specs";
import { writeSharedContext, type SharedContextChange } from "./store";

/** The shared-context tools' definitions (./tool-specs.ts), re-exported here for callers of this module. */
export { isSharedContextTool, SHARED_CONTEXT_READ_ONLY_TOOLS, SHARED_CONTEXT_TOOLS, sharedContextTools } from "./tool-specs";

/** Who is calling a shared-context tool. */
export interface SharedContextActor {
  /** Written as the entry's `author` (`Team Leader`, `研究员-1`). */
  display_name: string;
  /** `leader` outranks `agent` in rule 1. */
  role: "leader" | "agent";
  /** Timeline party of the caller: `leader` or `agent:<id>`. */
  party: string;
}

/** What {@link executeSharedContextTool} needs from the runtime. */
export interface SharedContextToolContext {
  /** The conversation's shared context as it is now (the engine's storage port: memory or its file). */
  read: () => Promise<SharedContextFile>;
  /** Stores one change of it, in order with every other writer's (the storage port's `updateSharedContext`). */
  change: SharedContextChange;
  actor: SharedContextActor;
  /**
   * Called once per timeline event a write produces (a `conflict_resolution` for every overwrite,
   * a `shared_context_write` for every append), after the write is stored. The runtime passes
   * `(e) => this.emit(cause, e)` with `version` carried into the timeline record.
   */
  emit: (event: SharedContextTimelineEvent) => unknown;
  /** When the call was requested: the engine's RequestClock (./clock.ts) as the call starts, before it queues. */
  requestedAt: Date;
  /** Rule 3's window; default `ASTRION_CONFLICT_WINDOW_MS`. */
  windowMs?: number;
}

function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

/** What the model reads back after a write: the outcome, and enough to act on it. */
function writeResultFor(decision: Decision): Record<string, unknown> {
  const base = { outcome: decision.outcome, key: decision.key, rule: decision.rule, version: decision.version };
  const winner = decision.entry ? { value: decision.entry.value, version: decision.entry.version, author: decision.entry.author } : null;
  switch (decision.outcome) {
    case "applied":
      return { ...base, message: `Written; "${decision.key}" is now at version ${decision.version}.` };
    case "pending":
      return {
        ...base,
        conflict_id: decision.conflict?.conflict_id ?? null,
        current: winner,
        message: `"${decision.key}" changed since version ${String(decision.proposed.expected_version)} and the other write was too close to yours to tell which is later; your value was NOT applied and now waits for a person to decide. Carry on with other work.`,
      };
    case "rejected":
      return {
        ...base,
        current: winner,
        message:
          decision.rule === "unknown_version"
            ? `"${decision.key}" has never had version ${String(decision.proposed.expected_version)}; read the shared context and retry with the version you read.`
            : `Your overwrite was NOT applied (${decision.rule === "leader_wins" ? "the current value was written or decided by a coordinator (the Team Leader or a person), who outranks you" : "the current value was requested after yours"}). Read the current value above and build on it (append, or overwrite with expected_version ${decision.version}).`,
      };
  }
}

/**
 * Runs `read_shared_context` or `update_shared_context` for `ctx.actor` and returns the tool
 * result (JSON text) for the model. Invalid arguments and refused writes come back as
 * `{"error": …}` results the model can correct; only unexpected failures (a corrupt file, a disk
 * error) throw. The timeline events of a write are passed to `ctx.emit` before this returns.
 */
export async function executeSharedContextTool(name: string, rawArgs: string, ctx: SharedContextToolContext): Promise<string> {
  const { requestedAt } = ctx;
  if (!isSharedContextTool(name)) return errorResult(`unknown tool ${name}`);
  try {
    if (name === "read_shared_context") {
      const parsed = parseToolArguments(SHARED_CONTEXT_TOOL_ARGS.read_shared_context, rawArgs);
      if (!parsed.ok) return errorResult(parsed.error);
      const file = await ctx.read();
      return JSON.stringify({
        entries: Object.values(file.entries).map((e) => ({ key: e.key, value: e.value, version: e.version, author: e.author, author_role: e.author_role, updated_at: e.updated_at })),
        pending: file.pending.map((c) => ({ conflict_id: c.conflict_id, key: c.key, proposed_by: c.proposed.author, created_at: c.created_at })),
      });
    }
    const parsed = parseToolArguments(SHARED_CONTEXT_TOOL_ARGS.update_shared_context, rawArgs);
    if (!parsed.ok) return errorResult(parsed.error);
    const args = parsed.args;
    const decision = await writeSharedContext(ctx.change, {
      key: args.key,
      value: args.value,
      mode: args.mode,
      expected_version: args.expected_version ?? null,
      author: ctx.actor.display_name,
      author_role: ctx.actor.role,
      requested_at: requestedAt,
      windowMs: ctx.windowMs,
    });
    for (const event of timelineEventsOf(decision, ctx.actor.party)) await ctx.emit(event);
    return JSON.stringify(writeResultFor(decision));
  } catch (error) {
    if (error instanceof AstrionError && error.status < 500) return errorResult(error.message);
    throw error;
  }
}

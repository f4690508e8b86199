import "server-only";
/**
 * The shared-context tools offered to the Team Leader and to sub-agents (OpenAI function calling)
 * and their executor. Arbitration happens in code: the model only proposes a write, and the
 * result it reads back says whether it was applied, refused (and why, with the value that won) or
 * is waiting for a person.
 */
import { z } from "zod";
import { AstrionError } from "@/lib/errors";
import type { ToolSpec } from "@/lib/models/types";
import { timelineEventsOf, type SharedContextTimelineEvent } from "./events";
import { MAX_WRITE_LENGTH, SharedKeySchema, VersionSchema, WriteModeSchema, type Decision } from "./schema";
import { readSharedContext, requestTime, writeSharedContext } from "./store";
import { parseToolArguments } from "@/lib/runtime/tools";

/** Models sometimes send numbers as strings (`"3"`); accept those, nothing looser. */
const LooseVersion = z.preprocess((v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v), VersionSchema.optional());

/** Argument schemas of the shared-context tools. */
export const SHARED_CONTEXT_TOOL_ARGS = {
  read_shared_context: z.object({}).loose(),
  update_shared_context: z
    .object({
      key: SharedKeySchema,
      value: z.string().max(MAX_WRITE_LENGTH),
      mode: WriteModeSchema,
      expected_version: LooseVersion,
    })
    .superRefine((a, ctx) => {
      if (a.mode === "overwrite" && a.expected_version === undefined) {
        ctx.addIssue({ code: "custom", path: ["expected_version"], message: "an overwrite needs the version you read (0 for a new key); call read_shared_context first" });
      }
    }),
} as const;

/** Names of the shared-context tools. */
export type SharedContextToolName = keyof typeof SHARED_CONTEXT_TOOL_ARGS;

/** Whether `name` is one of the shared-context tools. */
export function isSharedContextTool(name: string): name is SharedContextToolName {
  return Object.prototype.hasOwnProperty.call(SHARED_CONTEXT_TOOL_ARGS, name);
}

/** Shared-context tools that only read: safe to run again after a crash (add to READ_ONLY_TOOLS). */
export const SHARED_CONTEXT_READ_ONLY_TOOLS: ReadonlySet<string> = new Set(["read_shared_context"]);

function fn(name: string, description: string, parameters: Record<string, unknown>): ToolSpec {
  return { type: "function", function: { name, description, parameters } };
}

/** The tool specs, for the leader and for every sub-agent alike. */
export function sharedContextTools(): ToolSpec[] {
  return [
    fn(
      "read_shared_context",
      "Read the team's shared context: every key with its value, version, author and time, and writes waiting for a person. Read before you overwrite.",
      { type: "object", properties: {} },
    ),
    fn(
      "update_shared_context",
      "Write a key of the team's shared context. mode 'append' adds your text on a new line and never conflicts. mode 'overwrite' replaces the value and needs expected_version (the version you read; 0 for a new key). If someone changed the key since you read it, the write is arbitrated: the Team Leader (or a person) outranks agents, otherwise the later request wins, and requests too close together wait for a person.",
      {
        type: "object",
        properties: {
          key: { type: "string", description: "Short name, e.g. 'api.status' or 'plan'." },
          value: { type: "string" },
          mode: { type: "string", enum: ["append", "overwrite"] },
          expected_version: { type: "integer", minimum: 0, description: "Required for overwrite: the version you read (0 if the key did not exist)." },
        },
        required: ["key", "value", "mode"],
      },
    ),
  ];
}

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
  /** The conversation's folder (`<data>/conversations/<id>`). */
  conversationDir: string;
  actor: SharedContextActor;
  /**
   * Called once per timeline event a write produces (a `conflict_resolution` for every overwrite,
   * a `shared_context_write` for every append), after the write is on disk. The runtime passes
   * `(e) => this.emit(cause, e)` with `version` carried into the timeline record.
   */
  emit: (event: SharedContextTimelineEvent) => unknown;
  /** When the call was requested; default {@link requestTime} as the call starts (before it queues). */
  requestedAt?: Date;
  /** Rule 3's window; default `ASTRION_CONFLICT_WINDOW_MS`. */
  windowMs?: number;
}

function errorResult(message: string): string {
  return JSON.stringify({ error: message });
}

/** What the model reads back after a write: the outcome, and enough to act on it. */
export function writeResultFor(decision: Decision): Record<string, unknown> {
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
  const requestedAt = ctx.requestedAt ?? requestTime();
  if (!isSharedContextTool(name)) return errorResult(`unknown tool ${name}`);
  try {
    if (name === "read_shared_context") {
      const parsed = parseToolArguments(SHARED_CONTEXT_TOOL_ARGS.read_shared_context, rawArgs);
      if (!parsed.ok) return errorResult(parsed.error);
      const file = await readSharedContext(ctx.conversationDir);
      return JSON.stringify({
        entries: Object.values(file.entries).map((e) => ({ key: e.key, value: e.value, version: e.version, author: e.author, author_role: e.author_role, updated_at: e.updated_at })),
        pending: file.pending.map((c) => ({ conflict_id: c.conflict_id, key: c.key, proposed_by: c.proposed.author, created_at: c.created_at })),
      });
    }
    const parsed = parseToolArguments(SHARED_CONTEXT_TOOL_ARGS.update_shared_context, rawArgs);
    if (!parsed.ok) return errorResult(parsed.error);
    const args = parsed.args;
    const decision = await writeSharedContext(ctx.conversationDir, {
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

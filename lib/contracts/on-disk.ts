/**
 * One zod schema per file of the on-disk contract (SPEC §2, seed 000). These are the single
 * source of truth: the store parses every file it reads with them and the client imports the
 * inferred types. Objects are "loose": fields this version does not know are kept, so a file
 * written by a newer version or by hand survives a read-modify-write. Fields the seed marks
 * optional are optional here too, so older or hand-written files still load.
 */
import { z } from "zod";

/** What a tool does to the world: reads, writes, executes, or only changes the team's own state. */
export const ToolEffectSchema = z.enum(["read", "write", "execute", "internal"]);
export type ToolEffect = z.infer<typeof ToolEffectSchema>;

/** `conv_YYYYMMDD_HHMMSS_NNN` (NNN may grow past three digits when one second holds more). */
export const CONVERSATION_ID_PATTERN = /^conv_\d{8}_\d{6}_\d{3,6}$/;

/** A conversation id. Strict, so an id can never name a path outside the data folder. */
export const ConversationIdSchema = z
  .string()
  .regex(CONVERSATION_ID_PATTERN, "must look like conv_YYYYMMDD_HHMMSS_NNN");

/** A sub-agent instance number (seed: `agent_id`, a positive integer). */
export const AgentIdSchema = z.coerce.number().int().positive();

/**
 * ISO local time with seconds and no zone, as the seed writes it (`2026-07-11T21:00:00`).
 * Readers accept any string so a file written by another tool (with microseconds, say) loads.
 */
export const LocalTimestampSchema = z.string().min(1);

/** Seed `run_mode`. */
export const RunModeSchema = z.enum(["fast", "thinking", "deep"]);
export type RunMode = z.infer<typeof RunModeSchema>;

/** Seed conversation `status`. */
export const ConversationStatusSchema = z.enum(["active", "archived"]);
export type ConversationStatus = z.infer<typeof ConversationStatusSchema>;

/** Conversation phase (SPEC §3), kept beside the seed's `status`. */
export const ConversationPhaseSchema = z.enum(["IDLE", "ENGAGED", "WAITING", "RESPONDING", "HANDOFF", "CLOSED"]);
export type ConversationPhase = z.infer<typeof ConversationPhaseSchema>;

/** Seed sub-agent `status`. */
export const AgentStatusSchema = z.enum(["running", "waiting", "idle", "completed", "terminated"]);
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

/** `state.json`: global counters. */
export const StateFileSchema = z.looseObject({
  version: z.string(),
  last_conversation_id: z.string().nullable().optional(),
  /** The global instance counter (seed §3): the data folder's count of sub-agents; an agent's own id is numbered within its conversation. */
  agent_id_counter: z.number().int().nonnegative().optional(),
  created_at: LocalTimestampSchema,
  updated_at: LocalTimestampSchema,
});
export type StateFile = z.infer<typeof StateFileSchema>;

/** One entry of `conversations/index.json`. */
export const IndexEntrySchema = z.looseObject({
  title: z.string(),
  created_at: LocalTimestampSchema,
  updated_at: LocalTimestampSchema,
  agent_count: z.number().int().nonnegative(),
});
export type IndexEntry = z.infer<typeof IndexEntrySchema>;

/** `conversations/index.json`: `{ "<conv_id>": IndexEntry }`. */
export const IndexFileSchema = z.record(z.string(), IndexEntrySchema);
export type IndexFile = z.infer<typeof IndexFileSchema>;

/**
 * A conversation's token and cost totals as metadata.json keeps them (an addition: a copy of
 * `token_statistics.total` in messages.json, so the conversation list never reads that file).
 * Lenient: a broken copy reads as absent rather than making the metadata unreadable.
 */
export const TokenTotalsSchema = z.looseObject({
  prompt_tokens: z.number().nonnegative(),
  cached_tokens: z.number().nonnegative().optional(),
  completion_tokens: z.number().nonnegative(),
  total_tokens: z.number().nonnegative(),
  calls: z.number().int().nonnegative(),
  priced_calls: z.number().int().nonnegative().optional(),
  /** Dollars of the calls that had prices, at the prices of each call; absent when none had. */
  cost_usd: z.number().nonnegative().optional(),
});
export type TokenTotals = z.infer<typeof TokenTotalsSchema>;

/** `conversations/<id>/metadata.json`. */
export const ConversationMetadataSchema = z.looseObject({
  id: ConversationIdSchema,
  title: z.string(),
  created_at: LocalTimestampSchema,
  updated_at: LocalTimestampSchema,
  project_path: z.string(),
  model_key: z.string(),
  thinking_mode: z.boolean(),
  run_mode: RunModeSchema,
  status: ConversationStatusSchema,
  agent_count: z.number().int().nonnegative(),
  agent_ids: z.array(z.number().int().positive()),
  phase: ConversationPhaseSchema.optional(),
  token_totals: TokenTotalsSchema.optional().catch(undefined),
});
export type ConversationMetadata = z.infer<typeof ConversationMetadataSchema>;

/** An OpenAI-shaped tool call kept on an assistant message. */
export const ToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Who a message came from and how the UI shows it (seed §5). */
export const MessageMetadataSchema = z.looseObject({
  message_source: z.enum(["user", "sub_agent", "leader", "system"]).optional(),
  visibility: z.enum(["chat", "compact", "hidden"]).optional(),
  starts_work: z.boolean().optional(),
  agent_id: z.number().int().positive().optional(),
});
export type MessageMetadata = z.infer<typeof MessageMetadataSchema>;

/** One chat message, the same shape for the leader and for sub-agents. */
export const MessageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable(),
  message_id: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  metadata: MessageMetadataSchema.optional(),
});
export type Message = z.infer<typeof MessageSchema>;

/** `conversations/<id>/messages.json`: the Team Leader's conversation. */
export const LeaderMessagesFileSchema = z.looseObject({
  id: ConversationIdSchema,
  title: z.string(),
  created_at: LocalTimestampSchema,
  updated_at: LocalTimestampSchema,
  messages: z.array(MessageSchema),
  metadata: z.record(z.string(), z.unknown()).optional(),
  token_statistics: z.record(z.string(), z.unknown()).optional(),
});
export type LeaderMessagesFile = z.infer<typeof LeaderMessagesFileSchema>;

/** A message queued for a sub-agent, delivered between model calls. `created_at` is epoch seconds. */
export const PendingMessageSchema = z.looseObject({
  id: z.string(),
  source_display_name: z.string(),
  source_agent_id: z.number().int().positive().nullable(),
  message_type: z.string(),
  content: z.string(),
  created_at: z.number(),
});
export type PendingMessage = z.infer<typeof PendingMessageSchema>;

/** A tool call (e.g. `ask_master`) waiting for an answer. `created_at` is epoch seconds. */
export const PendingToolCallSchema = z.looseObject({
  tool_call_id: z.string(),
  tool_name: z.string(),
  question_id: z.string(),
  created_at: z.number(),
});
export type PendingToolCall = z.infer<typeof PendingToolCallSchema>;

/**
 * A tool call waiting for a person's approval (issue 10): a pending entry like a question's, with
 * `kind: "approval"`, what the call does, its command or arguments and the folder it acts in.
 * `question_id` is `approval:<tool_call_id>` (the seed's entry requires one).
 */
export const PendingApprovalSchema = PendingToolCallSchema.extend({
  kind: z.literal("approval"),
  effect: ToolEffectSchema,
  command: z.string().optional(),
  cwd: z.string(),
  arguments_preview: z.string(),
  /** A command: the conversation's count of agent changes when it was asked for. */
  agent_changes: z.number().int().min(0).optional(),
  /** An allow-listed command asked for anyway, and why (lib/governance/tool-policy.ts `commandHold`). */
  held: z.object({ code: z.enum(["agent_changed_files", "git_repository_new", "git_diff_program", "git_alias"]), message: z.string(), detail: z.string().optional() }).optional(),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

/** `conversations/<id>/agents/<agent_id>/metadata.json`. */
/** Why an internal error ended a sub-agent's loop (an addition; cleared by the agent's next task). */
export const AgentFailureSchema = z.object({
  code: z.string(),
  /** A short, path-free name of the fault (`ENAMETOOLONG`, `internal error`). */
  fault: z.string(),
  /** ISO time of the failure. */
  at: z.string(),
});
export type AgentFailure = z.infer<typeof AgentFailureSchema>;

export const AgentMetadataSchema = z.looseObject({
  agent_id: z.number().int().positive(),
  role_id: z.string(),
  display_name: z.string(),
  status: AgentStatusSchema,
  created_at: LocalTimestampSchema,
  updated_at: LocalTimestampSchema,
  task_summary: z.string().optional(),
  model_key: z.string().optional(),
  thinking_mode: z.string().optional(),
  pending_messages: z.array(PendingMessageSchema).optional(),
  pending_tool_calls: z.array(PendingToolCallSchema).optional(),
  failure: AgentFailureSchema.optional(),
});
export type AgentMetadata = z.infer<typeof AgentMetadataSchema>;

/** `conversations/<id>/agents/<agent_id>/messages.json`: a sub-agent's whole conversation. */
export const AgentMessagesFileSchema = z.looseObject({
  agent_id: z.number().int().positive(),
  role_id: z.string(),
  display_name: z.string(),
  created_at: LocalTimestampSchema,
  updated_at: LocalTimestampSchema,
  messages: z.array(MessageSchema),
});
export type AgentMessagesFile = z.infer<typeof AgentMessagesFileSchema>;

/**
 * What the runtime streams to browsers (SSE, `GET /api/conversations/[id]/events`): one union
 * told apart by `type`, with zod schemas so the client parses exactly what the server sends.
 * Pure: importable by client code.
 *
 * The first event of every connection is a `snapshot` (the full state); every later event is a
 * change to apply to it. Agent ids are numbers; `agent_id: null` means the Team Leader.
 */
import { QueuedMessageSchema } from "./interventions";
import { z } from "zod";
import {
  AgentMetadataSchema,
  ConversationMetadataSchema,
  ConversationPhaseSchema,
  MessageSchema,
} from "./on-disk";
import { PROJECT_FOLDER_REFUSALS } from "./project-folder";
import { TimelineRecordSchema } from "./timeline-record";

/**
 * Token counts accumulated for one agent, model or the whole conversation, and their cost:
 * `prompt_tokens` is every input token, `cached_tokens` the part of it the provider served from its
 * cache; `cost_usd` sums the calls that had prices (`priced_calls` of `calls`), null when none had.
 */
export const TokenCountsSchema = z.object({
  prompt_tokens: z.number(),
  cached_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  calls: z.number(),
  priced_calls: z.number(),
  cost_usd: z.number().nullable(),
});
export type TokenCounts = z.infer<typeof TokenCountsSchema>;

/** The kinds of what an agent does, each put in words by the UI (`agentAction.<kind>`). */
export const AGENT_ACTION_KINDS = [
  "think",
  "read",
  "list",
  "search",
  "write",
  "run",
  "await_approval",
  "ask_leader",
  "message",
  "report",
  "shared_read",
  "shared_write",
  "recall",
  "tool",
  "created",
  "read_inbox",
  "answered",
  "reported",
  "approved",
  "denied",
  "terminated",
  "ability_work",
  "ability_wait",
  "ability_reply",
  "withdrawn",
] as const;
/** One of {@link AGENT_ACTION_KINDS}. */
export type AgentActionKind = (typeof AGENT_ACTION_KINDS)[number];

/** An action's descriptor (what and on what), without its time. */
export interface AgentActionInit {
  kind: AgentActionKind;
  target?: string;
}

/**
 * What an agent is doing, as a descriptor the UI puts in words in its own language: `kind` says
 * what (one of {@link AGENT_ACTION_KINDS}), `target` on what (a path, a query, a command), `at`
 * since when (ISO UTC). `kind` is a string on the wire so a page older than its server still
 * reads a kind it does not know (it words it generically).
 */
export const AgentActionSchema = z.object({
  kind: z.string(),
  target: z.string().optional(),
  at: z.string(),
});
export type AgentAction = z.infer<typeof AgentActionSchema>;

/** A sub-agent as the team panel shows it: its metadata plus live facts. */
export const AgentViewSchema = z.object({
  metadata: AgentMetadataSchema,
  /** The last thing it did, in a few words of English (`read_file src/app.ts`, `thinking…`), for API clients. */
  last_activity: z.string().nullable(),
  last_activity_at: z.string().nullable(),
  /** The last thing it did as a descriptor (null before it did anything in this server's life). */
  action: AgentActionSchema.nullable().default(null),
  /** Its last few actions, oldest first (model calls left out), the current one last. */
  recent_actions: z.array(AgentActionSchema).default([]),
  /**
   * When its current work began (ISO UTC): its task, or a message that woke it at rest, was
   * delivered, a person retried its work, or its loop resumed in this server's life. Null when
   * not known (it has not worked since this server started).
   */
  working_since: z.string().nullable().default(null),
  tokens: TokenCountsSchema,
  /** Model calls made for the current task, against the cap. */
  calls_this_task: z.number(),
});
export type AgentView = z.infer<typeof AgentViewSchema>;

/** A question a sub-agent asked (`ask_master`) that nobody has answered yet. */
export const PendingQuestionSchema = z.object({
  question_id: z.string(),
  agent_id: z.number(),
  display_name: z.string(),
  question: z.string(),
  tool_call_id: z.string(),
  created_at: z.number(),
});
export type PendingQuestion = z.infer<typeof PendingQuestionSchema>;

/** Why a model cannot be used or failed (lib/models `ModelCallFailure`, plus none configured and a circuit open). */
export const MODEL_NOTICE_REASONS = ["network", "timeout", "stalled", "rate_limited", "server", "client", "bad_response", "aborted", "no_model", "circuit_open"] as const;
/** Why an MCP server's tools are not offered (lib/mcp). */
export const MCP_NOTICE_REASONS = ["mcp_file_broken", "mcp_not_declared", "mcp_missing_variable", "mcp_backing_off", "mcp_start_failed", "mcp_timeout", "mcp_protocol", "mcp_connection"] as const;
/** What kind of fault stopped a loop or a background job (lib/runtime/team/tool-failure.ts `faultReason`). */
export const FAULT_NOTICE_REASONS = ["fault_disk_full", "fault_permission", "fault_read_only", "fault_missing", "fault_too_many_files", "fault_io", "fault_corrupt", "fault_internal"] as const;
/** Why a run's project folder is refused: a folder rule (lib/contracts/project-folder.ts), or metadata.json naming another folder. */
export const PROJECT_NOTICE_REASONS = [...PROJECT_FOLDER_REFUSALS.map((r) => `project_${r}` as const), "project_changed"] as const;

/**
 * Every reason a notice names (its `params.reason`), a closed set: the UI words each one
 * (`notice.cause.<reason>`, with the notice's `params`) in its language. The server's English
 * detail goes in `detail`, never in the words.
 */
export const NOTICE_REASONS = [...MODEL_NOTICE_REASONS, ...MCP_NOTICE_REASONS, ...FAULT_NOTICE_REASONS, ...PROJECT_NOTICE_REASONS] as const;
/** One of {@link NOTICE_REASONS}. */
export type NoticeReason = (typeof NOTICE_REASONS)[number];

/** A banner-worthy fact: a model endpoint failing, a cap reached, a stop. */
export const NoticeSchema = z.object({
  level: z.enum(["info", "warning", "error"]),
  /** `model_error`, `cap_agents`, `cap_calls`, `cap_spawn`, `stopped`, `interrupted`, … */
  code: z.string(),
  /** The text in English (for logs and API clients); the UI renders `key` with `params` in its language. */
  message: z.string(),
  /** The i18n message of the text (`notice.msg.…`). */
  key: z.string().optional(),
  /**
   * Values of the message's `{name}` placeholders: names, paths, identifiers, numbers, and a
   * `reason` (one of {@link NOTICE_REASONS}; a string on the wire, so a page older than its
   * server still reads a reason it does not know: it shows the English `cause` then).
   */
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  /** The server's English detail (an error's message), for logs and API clients: the UI never renders it. */
  detail: z.string().optional(),
  agent_id: z.number().nullable(),
  at: z.string(),
  /** The trace (the person's request) whose work failed, for a failure notice. */
  trace_id: z.string().optional(),
  /** The message whose processing failed (the person's message, a report, an agent's task), marked in the chat. */
  message_id: z.string().optional(),
  /** The last message saved before the failure: the failure is current while nothing came after it. */
  after_message_id: z.string().optional(),
  /** Whether Retry (`POST …/retry`) can take the failed work up again; absent means it can. */
  retryable: z.boolean().optional(),
});
export type Notice = z.infer<typeof NoticeSchema>;

/** The hard caps in force, so the UI can show "3 / 8 agents". */
export const CapsSchema = z.object({ max_agents: z.number(), max_calls_per_task: z.number() });
export type Caps = z.infer<typeof CapsSchema>;

/** The full state of one conversation. */
export const ConversationSnapshotSchema = z.object({
  conversation: ConversationMetadataSchema,
  leader: z.object({
    messages: z.array(MessageSchema),
    busy: z.boolean(),
    token_statistics: z.record(z.string(), z.unknown()),
  }),
  agents: z.array(AgentViewSchema),
  questions: z.array(PendingQuestionSchema),
  notices: z.array(NoticeSchema),
  caps: CapsSchema,
  /** Label of the leader's model, e.g. `qwen3-max` or `Offline (built-in) — offline`. */
  model_label: z.string(),
  /** Messages people queued until the current work is over (issue 32), in the order they will be handled. */
  queued: z.array(QueuedMessageSchema).optional(),
});
export type ConversationSnapshot = z.infer<typeof ConversationSnapshotSchema>;

const agentRef = z.number().nullable();

/** Every event the runtime streams. */
export const RuntimeEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("snapshot"), snapshot: ConversationSnapshotSchema }),
  z.object({ type: z.literal("phase"), phase: ConversationPhaseSchema }),
  z.object({ type: z.literal("leader_busy"), busy: z.boolean() }),
  /**
   * A piece of live text from a model call in progress: sent to current viewers only, never
   * persisted nor kept for replay (the saved `message` follows; see {@link isLiveOnlyEvent}).
   */
  z.object({
    type: z.literal("delta"),
    agent_id: agentRef,
    kind: z.enum(["content", "reasoning", "tool_call"]),
    text: z.string(),
  }),
  /**
   * A piece of a running command's output (`run_command`): live only, like `delta`; the capped
   * output is in the saved tool result.
   */
  z.object({ type: z.literal("command_output"), agent_id: z.number(), tool_call_id: z.string(), text: z.string() }),
  /** A message was appended to the leader's (agent_id null) or a sub-agent's messages.json. */
  z.object({ type: z.literal("message"), agent_id: agentRef, message: MessageSchema }),
  /** A sub-agent was created or changed (status, task, pending lists, tokens, last activity). */
  z.object({ type: z.literal("agent"), agent: AgentViewSchema }),
  z.object({ type: z.literal("question"), question: PendingQuestionSchema }),
  z.object({ type: z.literal("question_answered"), question_id: z.string(), answered_by: z.string() }),
  z.object({ type: z.literal("usage"), token_statistics: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal("timeline"), record: TimelineRecordSchema }),
  z.object({ type: z.literal("notice"), notice: NoticeSchema }),
  /** The queue of messages waiting for the work to be over changed (issue 32): the whole list. */
  z.object({ type: z.literal("queue"), queued: z.array(QueuedMessageSchema) }),
]);
export type RuntimeEvent = z.infer<typeof RuntimeEventSchema>;

/** Event types that only matter live: delivered to current viewers, never kept for replay. */
export const LIVE_ONLY_EVENT_TYPES: ReadonlySet<RuntimeEvent["type"]> = new Set(["delta", "command_output"]);

/**
 * True for an event a reconnecting viewer does not need: streamed text of a model call, which the
 * saved `message` event (kept for replay) or the next snapshot carries in full.
 */
export function isLiveOnlyEvent(event: { type?: unknown } | null | undefined): boolean {
  return typeof event?.type === "string" && LIVE_ONLY_EVENT_TYPES.has(event.type as RuntimeEvent["type"]);
}

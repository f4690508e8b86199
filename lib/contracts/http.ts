/**
 * Request and response bodies of the HTTP API that are not a stored file's schema. Route
 * handlers parse with these; the client imports the same schemas and types.
 */
import { InterventionOutcomeSchema, InterventionStrategySchema } from "./interventions";
import { z } from "zod";
import {
  ConversationMetadataSchema,
  ConversationPhaseSchema,
  ConversationStatusSchema,
  MessageSchema,
  RunModeSchema,
  TokenTotalsSchema,
} from "./on-disk";
import { AgentViewSchema, PendingQuestionSchema } from "./events";
import { IndexReportSchema } from "./index-report";
import { BackendHealthSchema } from "./backend-health";
import { TimelineRecordSchema } from "./timeline-record";
import { SearchReportSchema } from "./search";
import { TraceIdSchema } from "./envelope";
import { PROJECT_FOLDER_REFUSALS } from "./project-folder";
import { PersonIdSchema, PersonSchema } from "./people";

/** The error body of every failed API call. */
export const ApiErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

/** A model key as used in role frontmatter and conversation metadata. */
export const ModelKeySchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, "a model key: letters, digits, '.', '_', ':', '/' and '-'");

/** `POST /api/conversations`. */
export const CreateConversationBodySchema = z.object({
  title: z.string().trim().max(200, "at most 200 characters").optional(),
  project_path: z.string().trim().min(1, "a project folder is required").max(4096),
  model_key: ModelKeySchema.optional(),
  run_mode: RunModeSchema.default("fast"),
  /**
   * The goal for the Team Leader, sent as the person's first message once the conversation
   * exists, so creating it and starting the team are one step. Empty or absent: an empty
   * conversation. The same bounds as a message's `content`.
   */
  goal: z.string().trim().max(100_000, "at most 100,000 characters").optional(),
});
export type CreateConversationBody = z.infer<typeof CreateConversationBodySchema>;

/**
 * The issue a refused project folder puts in a `validation_failed` answer's `details`: the
 * English `message`, a stable `reason` (the UI shows its own localized text for it) and, for the
 * data and app folder rules, the `folder` concerned.
 */
export const ProjectFolderIssueSchema = z.object({
  path: z.literal("project_path"),
  message: z.string(),
  reason: z.enum(PROJECT_FOLDER_REFUSALS),
  folder: z.string().optional(),
});
export type ProjectFolderIssue = z.infer<typeof ProjectFolderIssueSchema>;

/** The project-folder issue among an error's `details`, if there is one. */
export function projectFolderIssueOf(details: unknown): ProjectFolderIssue | null {
  if (!Array.isArray(details)) return null;
  for (const d of details) {
    const parsed = ProjectFolderIssueSchema.safeParse(d);
    if (parsed.success) return parsed.data;
  }
  return null;
}

/** `PATCH /api/conversations/[id]`: rename, archive or unarchive, change the roles allowed or the model. */
export const PatchConversationBodySchema = z
  .object({
    title: z.string().trim().min(1, "a title cannot be empty").max(200, "at most 200 characters").optional(),
    status: ConversationStatusSchema.optional(),
    /** Roles this conversation may use (the leader's whitelist); `null` allows every registered role. */
    allowed_roles: z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, "a role id")).max(500).nullable().optional(),
    /** The conversation's model (a registered key): its leader's next call and new agents use it. */
    model_key: ModelKeySchema.optional(),
  })
  .refine((b) => b.title !== undefined || b.status !== undefined || b.allowed_roles !== undefined || b.model_key !== undefined, {
    message: "give a title, a status, allowed_roles or model_key",
  });
export type PatchConversationBody = z.infer<typeof PatchConversationBodySchema>;

/** `GET /api/conversations` query. */
export const ListConversationsQuerySchema = z.object({
  q: z.string().trim().max(200).optional(),
  status: z.enum(["active", "archived", "all"]).default("active"),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export type ListConversationsQuery = z.infer<typeof ListConversationsQuerySchema>;

/** One row of the conversation index. */
export const ConversationListItemSchema = z.object({
  id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  agent_count: z.number(),
  status: ConversationStatusSchema,
  phase: ConversationPhaseSchema.optional(),
  model_key: z.string(),
  run_mode: RunModeSchema,
  project_path: z.string(),
  /** Tokens and cost of the whole conversation (metadata.json's `token_totals`); absent before its first model call. */
  token_totals: TokenTotalsSchema.optional(),
});
export type ConversationListItem = z.infer<typeof ConversationListItemSchema>;

/** A file the store could not use, reported instead of hidden. */
export const StoreProblemSchema = z.object({ file: z.string(), message: z.string() });
export type StoreProblem = z.infer<typeof StoreProblemSchema>;

/** `GET /api/conversations` answer. */
export const ConversationListSchema = z.object({
  items: z.array(ConversationListItemSchema),
  total: z.number(),
  offset: z.number(),
  limit: z.number(),
  problems: z.array(StoreProblemSchema),
});
export type ConversationList = z.infer<typeof ConversationListSchema>;

/** `GET/POST/PATCH /api/conversations[/id]` answer. */
export const ConversationResponseSchema = z.object({ conversation: ConversationMetadataSchema });

/** Answer of `POST /api/conversations`: the new conversation, and the message that started its team when a goal was given. */
export const CreatedConversationResponseSchema = ConversationResponseSchema.extend({
  started: z.object({ message_id: z.string(), trace_id: z.string() }).optional(),
});

/** Answer of a `DELETE` of a conversation, role, role file, memory entry or MCP server: its id or name. */
export const DeletedResponseSchema = z.object({ deleted: z.string() });

/**
 * Where a model's API key comes from, as the browser may see it: none needed, a key stored from
 * Settings ("key set"), or an environment variable ("from $NAME"); never the key itself.
 */
export const PublicKeySourceSchema = z.discriminatedUnion("source", [
  z.object({ source: z.literal("none") }),
  z.object({ source: z.literal("stored"), set: z.boolean() }),
  z.object({ source: z.literal("env"), env: z.string(), set: z.boolean() }),
]);
export type PublicKeySource = z.infer<typeof PublicKeySourceSchema>;

/** A model as the browser may see it: never its key or key variable's value. */
/**
 * An entry's provider profile (lib/models/providers) and where it came from: `named` in
 * models.json, guessed from the `base_url` (`detail` the host or port) or from the `server`'s
 * `/v1/models` answer (`detail` e.g. `owned_by "vllm"`), or the `default` (`generic`).
 */
export const PublicProviderSchema = z.object({
  /** A profile (`openai`, `vllm`, `ollama`, `deepseek`, `dashscope`, `lmstudio`, `llamacpp`, `generic`) or `offline`. */
  profile: z.string(),
  source: z.enum(["named", "base_url", "server", "default"]),
  detail: z.string(),
});

export const PublicModelSchema = z.object({
  key: z.string(),
  label: z.string(),
  provider_model: z.string(),
  offline: z.boolean(),
  /** True when the model can be called now (offline, or its API key is at hand or not needed). */
  configured: z.boolean(),
  api_key: PublicKeySourceSchema,
  /** The provider profile the calls follow, and why (always sent by `GET /api/models`). */
  provider: PublicProviderSchema.optional(),
});
export type PublicModel = z.infer<typeof PublicModelSchema>;

/** `GET /api/models` answer. */
export const ModelListSchema = z.object({
  models: z.array(PublicModelSchema),
  default_key: z.string(),
  /** The model names roles may use besides the keys (`sonnet`, `inherit`…) → a key, `$default` or `$conversation`. */
  aliases: z.record(z.string(), z.string()),
});
export type ModelList = z.infer<typeof ModelListSchema>;

/**
 * The server's event-loop delay: the largest delay of each second for the last minute (how long
 * the slowest piece of synchronous work kept everything else waiting), oldest first.
 */
export const EventLoopReportSchema = z.object({
  resolution_ms: z.number(),
  window_s: z.number(),
  monitoring_since: z.string(),
  /** The largest value in `max_ms_per_second`. */
  max_ms: z.number(),
  max_ms_per_second: z.array(
    z.object({
      at: z.string(),
      max_ms: z.number(),
      /** CPU time the process used in that second (user + system, all its threads), in ms. */
      cpu_ms: z.number().optional(),
      /** Time spent in garbage-collection pauses in that second, in ms, and the longest one. */
      gc_ms: z.number().optional(),
      gc_max_ms: z.number().optional(),
      /** The longest gap between two ticks of the monitor's 10 ms timer in that second, and the main thread's CPU time during it, in ms. */
      longest_gap_ms: z.number().optional(),
      longest_gap_cpu_ms: z.number().optional(),
    }),
  ),
});
export type EventLoopReport = z.infer<typeof EventLoopReportSchema>;

/**
 * What the server holds in memory for conversations (`GET /api/health` → `resident`). A
 * conversation is held while a request uses it, its run works or a viewer follows it; then every
 * figure here goes back down.
 */
export const ResidentReportSchema = z.object({
  /** Conversations whose files the store holds in memory (with their step log open). */
  conversations_open: z.number(),
  /** Run objects (one per conversation held). */
  runs: z.number(),
  /** Conversations a request is using now. */
  runs_in_use: z.number(),
  /** Conversations whose leader or an agent is working. */
  runs_working: z.number(),
  /** Idle, unviewed runs kept because they hold notices for the person (at most 16). */
  runs_kept_for_notices: z.number(),
  /** Conversations being let go right now (their files checkpointed and closed). */
  runs_releasing: z.number(),
  /** Conversation topics of the bus with state (numbering, replay buffer, viewers). */
  bus_topics: z.number(),
  /** Events kept for `Last-Event-ID` replay, over all topics. */
  bus_buffered_events: z.number(),
  /** Agent wake-up topics with a listener. */
  bus_agent_topics: z.number(),
  /** Open SSE streams. */
  sse_streams: z.number(),
  /** Snapshot frames shared by open streams. */
  snapshot_frames: z.number(),
  /** Append-only files kept open (timelines, journals). */
  log_files_open: z.number(),
});
export type ResidentReport = z.infer<typeof ResidentReportSchema>;

/** `GET /api/health` answer without the access token (token mode): only that the server is up. */
export const PublicHealthSchema = z.object({ status: z.literal("ok") });

/** `GET /api/health` answer (with the token, or when no token is set). */
export const HealthSchema = z.object({
  status: z.literal("ok"),
  version: z.string(),
  data_root: z.string(),
  pid: z.number(),
  started_at: z.string(),
  /** The data folder, or PostgreSQL + Redis with whether each answers (docs/postgresql.md). */
  backend: BackendHealthSchema,
  problems: z.array(StoreProblemSchema),
  event_loop: EventLoopReportSchema.optional(),
  /** The in-memory conversation index: its load at boot, every rebuild of index.json, and its rewrites. */
  index: IndexReportSchema.optional(),
  search: SearchReportSchema.optional(),
  resident: ResidentReportSchema.optional(),
});
export type Health = z.infer<typeof HealthSchema>;

/** What `GET /api/health` may answer: the whole report, or only that the server is up (token mode, no token). */
export const HealthAnswerSchema = z.union([HealthSchema, PublicHealthSchema]);

/**
 * `POST /api/auth/signin`: the access token (the owner), or a person's name and password (team
 * mode, issue 32), and where the person wants to go afterwards.
 */
export const SignInBodySchema = z
  .object({
    token: z.string().min(1).max(1024).optional(),
    name: z.string().trim().min(1).max(80).optional(),
    password: z.string().min(1).max(200).optional(),
    next: z.string().max(4096).optional(),
  })
  .refine((b) => (b.token !== undefined) !== (b.name !== undefined && b.password !== undefined) && (b.name === undefined) === (b.password === undefined), {
    message: "give either a token, or a name and a password",
    path: ["token"],
  });

/**
 * Answer of `POST /api/auth/signin`: `next` is the same-origin path to go to (never another site);
 * `person` is who signed in with a name and password.
 */
export const SignInResponseSchema = z.object({ signed_in: z.literal(true), required: z.boolean(), next: z.string(), person: PersonSchema.optional() });

/** Answer of `POST /api/auth/signout`. */
export const SignOutResponseSchema = z.object({ signed_out: z.literal(true) });

/**
 * `POST /api/conversations/[id]/messages` and `POST /api/conversations/[id]/agents/[agentId]/messages`:
 * a person's message to the Team Leader or to one sub-agent.
 */
export const PostMessageBodySchema = z.object({
  content: z.string().trim().min(1, "a message cannot be empty").max(100_000, "at most 100,000 characters"),
  /** Ignored since issue 32: the author is who is signed in (the owner on an unconfigured machine). */
  author: z.string().trim().min(1).max(80).optional(),
  /**
   * How the message is handled when a run is going (issue 32 interventions; default `steer`;
   * ignored when nothing runs: the message is then an ordinary one). `new_task` is the leader's only.
   */
  strategy: InterventionStrategySchema.optional(),
});
export type PostMessageBody = z.infer<typeof PostMessageBodySchema>;

/** Answer of `POST /api/conversations/[id]/messages` (202: the work goes on in the background). */
export const PostMessageResponseSchema = z.object({
  message_id: z.string(),
  trace_id: z.string(),
  /** Present when a run was going: what the message became (its strategy; its queue id when queued). */
  intervention: InterventionOutcomeSchema.optional(),
});

/**
 * `POST /api/conversations/[id]/retry`: retry the work that failed, the Team Leader's (`agent_id`
 * null, the default) or one idle sub-agent's. Nothing is re-sent.
 */
export const RetryBodySchema = z.object({ agent_id: z.number().int().positive().nullable().default(null) });
export type RetryBody = z.infer<typeof RetryBodySchema>;

/** Answer of `POST /api/conversations/[id]/retry` (202: the work goes on in the background). */
export const RetryResponseSchema = z.object({ retried: z.union([z.literal("leader"), z.number().int().positive()]) });

/** Answer of `POST /api/conversations/[id]/stop`. */
export const StopResponseSchema = z.object({ stopped: z.literal(true) });

/** `GET /api/conversations/[id]/agents` answer: every sub-agent and the questions nobody has answered yet. */
export const AgentListResponseSchema = z.object({ agents: z.array(AgentViewSchema), questions: z.array(PendingQuestionSchema) });

/** `GET /api/conversations/[id]/agents/[agentId]` answer: one sub-agent with its whole conversation. */
export const AgentDetailSchema = z.object({ agent: AgentViewSchema, messages: z.array(MessageSchema) });
export type AgentDetail = z.infer<typeof AgentDetailSchema>;

/** Answer of `DELETE /api/conversations/[id]/agents/[agentId]`: the agent terminated. */
export const TerminateAgentResponseSchema = z.object({ terminated: z.number().int().positive() });

/** Answer of `POST /api/conversations/[id]/agents/[agentId]/messages` (202: delivered before the agent's next step). */
export const AgentMessageResponseSchema = z.object({ message_id: z.string(), intervention: InterventionOutcomeSchema.optional() });

/** `POST /api/conversations/[id]/agents/[agentId]/answers`: a person answers a pending question. */
export const AnswerBodySchema = z.object({
  question_id: z.string().trim().regex(/^ask_[a-z0-9]+_\d{3,}$/, "a question id like ask_uio_001"),
  answer: z.string().trim().min(1, "an answer cannot be empty").max(100_000),
  /** Ignored since issue 32: the author is who is signed in (the owner on an unconfigured machine). */
  author: z.string().trim().min(1).max(80).optional(),
});
export type AnswerBody = z.infer<typeof AnswerBodySchema>;

/** Answer of `POST /api/conversations/[id]/agents/[agentId]/answers`. */
export const AnswerResponseSchema = z.object({ answered: z.literal(true), question_id: z.string() });

/**
 * `POST /api/conversations/[id]/agents/[agentId]/approvals`: a person approves or denies a tool
 * call that waits for approval. `always` (approve only) remembers it for the conversation:
 * `run_command` adds `pattern` (default: the exact command) to its allow-list, another tool is
 * allowed from then on.
 */
export const ApprovalBodySchema = z
  .object({
    tool_call_id: z.string().trim().min(1, "a tool_call_id is required").max(200),
    decision: z.enum(["approve", "deny"]),
    reason: z.string().trim().max(2000, "at most 2000 characters").optional(),
    always: z.boolean().optional(),
    pattern: z.string().trim().min(1, "a pattern cannot be empty").max(500, "at most 500 characters").optional(),
    /** Ignored since issue 32: the author is who is signed in (the owner on an unconfigured machine). */
  author: z.string().trim().min(1).max(80).optional(),
  })
  .refine((b) => !(b.decision === "deny" && (b.always || b.pattern)), { message: "always and pattern go with approve only", path: ["always"] })
  .refine((b) => !b.pattern || b.always, { message: "a pattern needs always: true", path: ["pattern"] });
export type ApprovalBody = z.infer<typeof ApprovalBodySchema>;

/** Answer of `POST /api/conversations/[id]/agents/[agentId]/approvals`: the call decided and how. */
export const ApprovalResponseSchema = z.object({ decided: z.literal(true), tool_call_id: z.string(), decision: z.enum(["approve", "deny"]) });

/** `GET /api/conversations/[id]/timeline` query. */
export const TimelineQuerySchema = z.object({ trace_id: TraceIdSchema.optional(), person: PersonIdSchema.optional() });

/** `GET /api/conversations/[id]/timeline` answer. */
export const TimelineResponseSchema = z.object({
  records: z.array(TimelineRecordSchema),
  /** Lines of timeline.jsonl that could not be read (skipped by the server). */
  bad_lines: z.number().int().nonnegative(),
});
export type TimelineResponse = z.infer<typeof TimelineResponseSchema>;

/** The `messageId` of `GET /api/conversations/[id]/context/[messageId]`: an assistant message's id. */
export const ContextMessageIdSchema = z.string().regex(/^msg_[A-Za-z0-9_]{1,80}$/, "a message id like msg_assistant_…");

/**
 * `GET /api/openapi.json` answer: an OpenAPI 3.1 document (lib/openapi builds it from these
 * schemas). Only its frame is checked here; what the paths and components hold is OpenAPI's.
 */
export const OpenApiDocumentSchema = z.looseObject({
  openapi: z.literal("3.1.0"),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.record(z.string(), z.unknown())),
});
export type OpenApiDocument = z.infer<typeof OpenApiDocumentSchema>;

/** `GET /api/search`: its query (the filters) and its answer live in lib/contracts/search.ts. */
export {
  SearchQuerySchema,
  SearchResultSchema,
  SearchHitSchema,
  SnippetSegmentSchema,
  type SearchQuery,
  type SearchResult,
  type SearchHit,
} from "./search";

/** The checks of the connection doctor, in the order they run (`POST /api/models/{key}/doctor`, `npm run doctor`). */
export const DOCTOR_CHECKS = ["server", "key", "model", "stream", "tool_call", "parallel_tool_calls", "thinking", "usage"] as const;

/**
 * One line of the connection doctor: `green` works, `amber` works with a workaround the app
 * applies, `red` does not work (its text holds the fix). `message` is a UI message key and
 * `params` its placeholders, so the browser shows it in the person's language; `text` is the
 * English sentence (the command line prints it). `said` is what the server answered, secrets
 * removed, when that is what the line is about.
 */
export const DoctorLineSchema = z.object({
  check: z.enum(DOCTOR_CHECKS),
  status: z.enum(["green", "amber", "red"]),
  message: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])),
  text: z.string(),
  said: z.string().optional(),
});
export type DoctorLine = z.infer<typeof DoctorLineSchema>;

/** `POST /api/models/{key}/doctor` answer: the lines of the checks that ran, and those a red line left unchecked. */
export const DoctorReportSchema = z.object({
  model_key: z.string(),
  /** The entry's provider profile and how it was found (as `GET /api/models` shows it). */
  provider: z.object({ profile: z.string(), source: z.enum(["named", "base_url", "server", "default"]), detail: z.string() }),
  lines: z.array(DoctorLineSchema),
  /** Checks not run because an earlier red line made them meaningless (a server that does not answer…). */
  skipped: z.array(z.enum(DOCTOR_CHECKS)),
  /** True when no line is red (the command line's exit code 0). */
  ok: z.boolean(),
  /** Milliseconds the whole check took. */
  ms: z.number().int().nonnegative(),
});
export type DoctorReport = z.infer<typeof DoctorReportSchema>;

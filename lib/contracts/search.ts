/**
 * The history search's API shapes: the query of `GET /api/search` (the filters) and its answer.
 * Pure (zod only): the route parses with these, the browser imports the same schemas through
 * lib/contracts/http.ts.
 */
import { z } from "zod";

/** How many hits one page may hold. */
export const MAX_SEARCH_LIMIT = 50;
/**
 * Of a query's matches, the newest this many are ranked by relevance (BM25) and paged; see
 * docs/history-search.md. Scoring every match of a common word over half a million messages
 * takes seconds; the newest few thousand take milliseconds, and recent history is what is
 * usually looked for.
 */
export const RANK_WINDOW = 2000;

/** A query parameter left empty in a form (`role=`) counts as absent. */
function optionalParam<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());
}

/** `YYYY-MM-DD`, or a local time `YYYY-MM-DDTHH:MM[:SS]` as the seed writes them. */
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?)?$/;

/** The leader as a person may type it in the `agent` filter, in either language of the UI. */
const LEADER_WORDS: ReadonlySet<string> = new Set(["leader", "负责人", "团队负责人"]);

/** Which party wrote a message, for the `agent` filter: the leader (`leader`, `负责人`) or a sub-agent's id. */
export const SearchAgentSchema = z
  .string()
  .trim()
  .regex(/^(leader|负责人|团队负责人|[1-9]\d{0,12})$/, "leader, or a sub-agent's number")
  .transform((v): "leader" | number => (LEADER_WORDS.has(v) ? "leader" : Number(v)));

/** `GET /api/search` query. */
export const SearchQuerySchema = z
  .object({
    q: z.string().trim().min(1, "type something to search for").max(500, "at most 500 characters"),
    /** A role id (agents/<id>.md) of the sub-agent that wrote the message. */
    role: optionalParam(z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, "a role id")),
    agent: optionalParam(SearchAgentSchema),
    /** The conversation's status; absent (or `all`): both. */
    status: optionalParam(z.enum(["active", "archived", "all"])),
    /** Messages written from this day (or local time) on. */
    from: optionalParam(z.string().trim().regex(DATE, "a date YYYY-MM-DD")),
    /** Messages written up to this day (whole day) or local time. */
    to: optionalParam(z.string().trim().regex(DATE, "a date YYYY-MM-DD")),
    /** The model key of the party that wrote the message (the conversation's for the leader). */
    model: optionalParam(z.string().trim().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, "a model key")),
    /** The message's role in the chat: what a person or agent wrote (`user`), a model's answer, a tool's result. */
    message_role: optionalParam(z.enum(["user", "assistant", "tool"])),
    limit: optionalParam(z.coerce.number().int().min(1).max(MAX_SEARCH_LIMIT)).transform((v) => v ?? 20),
    /** The `next_cursor` of the previous page. */
    cursor: optionalParam(z.string().regex(/^\d{1,5}$/, "a cursor from a previous answer")),
  })
  .refine((v) => !v.from || !v.to || lowerBound(v.from) <= upperBound(v.to), { message: "from must not be after to", path: ["from"] });
export type SearchQuery = z.infer<typeof SearchQuerySchema>;

/** The first local time a `from` value admits. */
export function lowerBound(from: string): string {
  return from.length === 10 ? `${from}T00:00:00` : from.length === 16 ? `${from}:00` : from;
}

/** The last local time a `to` value admits (a day: all of it). */
export function upperBound(to: string): string {
  return to.length === 10 ? `${to}T23:59:59` : to.length === 16 ? `${to}:59` : to;
}

/** A piece of a snippet; `hit` pieces are what matched. Render as text, never as HTML. */
export const SnippetSegmentSchema = z.object({ text: z.string(), hit: z.boolean() });

/** One message found. */
export const SearchHitSchema = z.object({
  conversation_id: z.string(),
  conversation_title: z.string(),
  conversation_status: z.enum(["active", "archived"]),
  /** null: the Team Leader's messages. */
  agent_id: z.number().int().positive().nullable(),
  agent_display_name: z.string(),
  /** The sub-agent's role id; null for the Team Leader. */
  role_id: z.string().nullable(),
  model_key: z.string(),
  message_role: z.enum(["system", "user", "assistant", "tool"]),
  message_id: z.string().nullable(),
  /** Position in its messages.json. */
  message_index: z.number().int().nonnegative(),
  /** When the message was written (local time, as the seed writes times). */
  created_at: z.string(),
  snippet: z.array(SnippetSegmentSchema),
  /** Relevance, higher is better (BM25). */
  score: z.number(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

/** `GET /api/search` answer. */
export const SearchResultSchema = z.object({
  hits: z.array(SearchHitSchema),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  /** True while the index is being rebuilt from the conversation files: results may be incomplete. */
  indexing: z.boolean(),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

/** The search index as `GET /api/health` reports it. */
export const SearchReportSchema = z.object({
  state: z.enum(["starting", "ready", "rebuilding", "failed"]),
  messages: z.number().int().nonnegative(),
  conversations: z.number().int().nonnegative(),
  /** Changes waiting for the next write. */
  queued: z.number().int().nonnegative(),
  flushes: z.number().int().nonnegative(),
  flush_ms_total: z.number().nonnegative(),
  /** Rebuilds from the conversation files since start, newest last. */
  rebuilds: z.array(z.object({ at: z.string(), reason: z.enum(["missing", "corrupt", "outdated"]), message: z.string(), conversations: z.number().int().nonnegative(), messages: z.number().int().nonnegative(), ms: z.number().nullable() })),
  /** Conversations found behind their files since start (changed while the index was not written) and indexed again. */
  reconciled: z.number().int().nonnegative(),
  error: z.string().nullable(),
});
export type SearchReport = z.infer<typeof SearchReportSchema>;

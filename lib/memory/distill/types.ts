/**
 * The distiller's inputs and outputs (seed 003 §5): the conclusions read from a conversation and
 * the memory candidates made from them. Pure: types only.
 */
import type { MemoryCandidate } from "../schema";
import type { RedactOptions } from "@/lib/redaction/redact";

/** Where a conclusion was read. */
export type ConclusionSource =
  /** A `CONCLUSION:` / `结论：` line (leader, person or a report). */
  | "marker"
  /** A finding of a sub-agent's report (`report_to_leader` summary, one per list item or sentence). */
  | "report"
  /** A finding of the leader's final summary of a request. */
  | "summary"
  /** What a person said they prefer. */
  | "person"
  /** A conclusion or decision a person stated (`Findings to keep: …`, `We decided …`, `结论：…`). */
  | "stated"
  /** An open question: asked and never answered, or listed as open. */
  | "question";

/** One conclusion read from a conversation, with the messages it came from. */
export interface Conclusion {
  /** `c1`, `c2`, … in reading order: how the model path cites it. */
  id: string;
  source: ConclusionSource;
  /** The text, on one line, at most {@link MAX_STATEMENT_CHARS} characters. */
  text: string;
  /** The `message_id`s of the leader's messages it was read from (more than one when repeated). */
  message_ids: string[];
  /** Who said it: `leader`, `person`, or the reporting agent's display name. */
  by: string;
  /** The role of the agent whose report it came from, when known. */
  role_id?: string;
  /** The report's status when not `completed` (a failed report's findings are less certain). */
  status?: string;
  /** Listed or asked as open: becomes an `open_issue`. */
  open?: boolean;
}

/** Longest statement kept (characters). */
export const MAX_STATEMENT_CHARS = 500;
/** Longest subject kept (characters). */
export const MAX_SUBJECT_CHARS = 80;
/** At most this many candidates come out of one distillation (the newest conclusions win). */
export const MAX_CANDIDATES = 40;

/** What kind of memory entry (`MemoryKind`). */
export type DistilledKind = MemoryCandidate["kind"];
/** Who may read it (`MemoryLevel`). */
export type DistilledLevel = MemoryCandidate["level"];

/** A memory candidate: what the memory service's `upsert` takes (lib/memory/schema.ts). */
export type DistilledCandidate = MemoryCandidate;

/** What every distillation of one conversation knows about it. */
export interface DistillContext {
  conversation_id: string;
  /** The conversation's project folder; null (or "") when it has none. */
  project_path: string | null;
  /** Configured internal account-id patterns (raw or compiled, as `redact` takes them): text matching one is sensitive. */
  accountPatterns?: RedactOptions["accountPatterns"];
}

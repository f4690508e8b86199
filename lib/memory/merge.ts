/**
 * Dedup and contradiction: whether a (redacted) candidate is new, repeats an entry, or
 * contradicts one; and the entry that results. Pure.
 *
 * - **Duplicate**: same kind and project, and a near-identical statement: after normalization
 *   (Unicode NFKC, case, punctuation and spaces), the content words (single characters for
 *   Chinese) overlap by at least {@link DUPLICATE_JACCARD}, with the same negation and the same
 *   values (numbers, versions). The older entry is kept, corroborated.
 * - **Contradiction**: same kind, project and subject (normalized, non-empty), a statement that is
 *   not a duplicate but speaks of the same thing: a negation or a value changed, or the content
 *   words mostly shared ({@link RELATED_OVERLAP}); for a preference any new statement on the same
 *   subject. The newer statement replaces the older one.
 * - Otherwise the candidate is added. Either update pushes the previous version to `history`.
 */
import { isStopWord } from "@/lib/text/stop-words";
import { normalizeText, tokenize } from "@/lib/text/words";
import type { MemoryCandidate, MemoryEntry, MemoryHistoryItem, MemoryLevel } from "./schema";

/** Share of content words two statements need in common (Jaccard) to be the same statement. */
const DUPLICATE_JACCARD = 0.8;
/** Share of the shorter statement's content words found in the other for a "same point" contradiction. */
const RELATED_OVERLAP = 0.5;

/** Negations: English words and contractions, Chinese negating characters. */
const NEGATION = /\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|\w+n't)\b|[不没沒无無未非别別勿否]/gu;
/** Chinese words that hold a negating character without negating ("very", "whatever", "not only", "future"). */
const NOT_NEGATION = /非常|无论|不仅|不但|未来/gu;
const HAS_DIGIT = /\p{N}/u;

/** Text as compared: NFKC (full-width forms folded), lower case, apostrophes unified. */
function comparable(text: string): string {
  return normalizeText(text).replace(/[\u2018\u2019\u02bc]/g, "'");
}

/** A subject as compared: normalized, only letters and digits kept ("Payment-service" = "payment service"). */
export function subjectKey(subject: string): string {
  return comparable(subject).replace(/[^\p{L}\p{N}]+/gu, "");
}

/** The parts of a statement the comparison uses. */
export interface StatementShape {
  /** Content words: no stop words, no negations, no values. */
  words: Set<string>;
  /** Tokens holding a digit: numbers, versions, sizes. */
  values: Set<string>;
  /** Number of negations, mod 2 ("not un-…" double negatives cancel). */
  negated: boolean;
}

/** Splits a statement into content words, values and negation. */
export function shapeOf(statement: string): StatementShape {
  const text = comparable(statement).replace(NOT_NEGATION, " ");
  const negations = text.match(NEGATION)?.length ?? 0;
  const words = new Set<string>();
  const values = new Set<string>();
  for (const t of tokenize(text.replace(NEGATION, " "))) {
    if (HAS_DIGIT.test(t.word)) values.add(t.word);
    else if (!isStopWord(t.word)) words.add(t.word);
  }
  return { words, values, negated: negations % 2 === 1 };
}

function intersection(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const common = intersection(a, b);
  return common / (a.size + b.size - common);
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && intersection(a, b) === a.size;
}

/** True when two statements say the same thing (see the module comment). */
function nearIdentical(a: StatementShape, b: StatementShape): boolean {
  return a.negated === b.negated && sameSet(a.values, b.values) && jaccard(a.words, b.words) >= DUPLICATE_JACCARD;
}

/** True when two statements on one subject speak of the same point (so the newer replaces the older). */
function samePoint(a: StatementShape, b: StatementShape): boolean {
  const smaller = Math.min(a.words.size, b.words.size);
  if (smaller === 0) return true;
  return intersection(a.words, b.words) / smaller >= RELATED_OVERLAP;
}

/** What to do with one candidate. */
export type MergeDecision =
  | { action: "add" }
  | { action: "duplicate"; target: MemoryEntry }
  | { action: "contradiction"; target: MemoryEntry };

type Comparable = Pick<MemoryCandidate, "kind" | "statement" | "subject" | "project_path">;

/**
 * Decides for `candidate` (already redacted) against `existing` entries. Only entries of the same
 * kind and project are considered; the closest duplicate wins, else the most recently updated
 * contradicted entry. `shapes` may cache {@link shapeOf} per entry id.
 */
export function decideMerge(candidate: Comparable, existing: readonly MemoryEntry[], shapes?: Map<string, StatementShape>): MergeDecision {
  const mine = shapeOf(candidate.statement);
  const subject = subjectKey(candidate.subject);
  let duplicate: { target: MemoryEntry; score: number } | null = null;
  let contradiction: MemoryEntry | null = null;
  for (const entry of existing) {
    if (entry.kind !== candidate.kind || entry.project_path !== candidate.project_path) continue;
    let theirs = shapes?.get(entry.id);
    if (!theirs) {
      theirs = shapeOf(entry.statement);
      shapes?.set(entry.id, theirs);
    }
    if (nearIdentical(mine, theirs)) {
      const score = jaccard(mine.words, theirs.words);
      if (!duplicate || score > duplicate.score) duplicate = { target: entry, score };
      continue;
    }
    if (subject === "" || subjectKey(entry.subject) !== subject) continue;
    if (candidate.kind === "preference" || samePoint(mine, theirs)) {
      if (!contradiction || entry.updated_at > contradiction.updated_at) contradiction = entry;
    }
  }
  if (duplicate) return { action: "duplicate", target: duplicate.target };
  if (contradiction) return { action: "contradiction", target: contradiction };
  return { action: "add" };
}

const LEVEL_RANK: Record<MemoryLevel, number> = { public: 0, project: 1, restricted: 2 };

/** The stricter of two levels: merging never widens who may read. */
export function stricterLevel(a: MemoryLevel, b: MemoryLevel): MemoryLevel {
  return LEVEL_RANK[a] >= LEVEL_RANK[b] ? a : b;
}

/** Earlier versions kept per entry; a conclusion repeated in every conversation must not grow without end. */
export const MAX_HISTORY = 50;

/** `history` with one more item, the oldest dropped past {@link MAX_HISTORY}. */
export function withHistory(history: readonly MemoryHistoryItem[], item: MemoryHistoryItem): MemoryHistoryItem[] {
  return [...history, item].slice(-MAX_HISTORY);
}

/** The history item that records `entry` as it was before a change for `reason`. */
export function historyItem(entry: MemoryEntry, reason: MemoryHistoryItem["reason"], at: string): MemoryHistoryItem {
  return { at, statement: entry.statement, subject: entry.subject, level: entry.level, confidence: entry.confidence, source: entry.source, reason };
}

/** Fields of the updated entry that come from the candidate (its text already redacted, with its spans). */
export type MergeInput = MemoryCandidate & { redactions: MemoryEntry["redactions"] };

function mergedGrant(level: MemoryLevel, a: readonly string[], b: readonly string[]): string[] {
  return level === "restricted" ? [...new Set([...a, ...b])] : [];
}

/**
 * The older entry after a duplicate: its text kept, its confidence corroborated
 * (1 − (1−a)(1−b), two independent sightings), the source merged (message ids joined when the
 * conversation is the same, else the newer source), the stricter level.
 */
export function applyDuplicate(older: MemoryEntry, candidate: MergeInput, at: string): MemoryEntry {
  const level = stricterLevel(older.level, candidate.level);
  const sameConversation = older.source.conversation_id === candidate.source.conversation_id;
  const source = sameConversation
    ? { conversation_id: older.source.conversation_id, message_ids: [...new Set([...older.source.message_ids, ...candidate.source.message_ids])].slice(0, 100) }
    : candidate.source.conversation_id === null
      ? older.source
      : candidate.source;
  const confidence = Math.min(1, 1 - (1 - older.confidence) * (1 - candidate.confidence));
  return {
    ...older,
    level,
    grant: mergedGrant(level, older.grant, candidate.grant),
    source,
    confidence: Math.round(confidence * 1000) / 1000,
    updated_at: at,
    history: withHistory(older.history, historyItem(older, "duplicate", at)),
  };
}

/** The older entry after a contradiction: the newer statement, subject, confidence and source; the stricter level. */
export function applyContradiction(older: MemoryEntry, candidate: MergeInput, at: string): MemoryEntry {
  const level = stricterLevel(older.level, candidate.level);
  return {
    ...older,
    statement: candidate.statement,
    subject: candidate.subject,
    level,
    grant: mergedGrant(level, older.grant, candidate.grant),
    source: candidate.source,
    confidence: candidate.confidence,
    redactions: candidate.redactions,
    updated_at: at,
    history: withHistory(older.history, historyItem(older, "contradiction", at)),
  };
}

/**
 * Conflict arbitration over the shared context (seed 003 §4.3). Pure: no I/O, no clock, no
 * randomness — the store passes the times and an id generator — so every rule is unit-tested.
 *
 * An append never conflicts: it extends the value and bumps the version. An overwrite whose
 * `expected_version` is the key's current version is applied. An overwrite based on an older
 * version (stale: the writer read version 3, someone else has since written version 4) is
 * arbitrated against the current value — the latest write it did not see — by the seed's rules,
 * in order:
 *  1. authority: the coordinator's side wins — the leader or a person beats an agent. A value
 *     ranks as the highest of its writers since the last overwrite (an agent's append to the
 *     leader's value leaves it the leader's) and as a person's once a person decided it;
 *  2. same authority: the later request wins. "Later" compares the two requests' times as the
 *     server stamped them when they reached it, not the order in which they got through the
 *     file's write queue: a request that waited behind a newer one is still the earlier one
 *     (seed 003 §4.4: a newer request that ran late must not undo the newer decision);
 *  3. same authority and the two request times less than the conflict window apart (or equal):
 *     neither is clearly later, so nothing is applied and the proposal waits for a person.
 * Every overwrite decision — plain ones included — yields a {@link Resolution} with both values.
 */
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import {
  AUTHORITY,
  MAX_ENTRIES,
  MAX_HISTORY,
  MAX_PENDING,
  MAX_VALUE_LENGTH,
  type AuthorRole,
  type Conflict,
  type Decision,
  type DecisionChoice,
  type Entry,
  type Proposal,
  type Resolution,
  type ResolutionRule,
  type SharedContextFile,
  type Side,
  type WriteMode,
} from "./schema";
import { hasOwnKey, ownValue } from "@/lib/own";

/** Default of `ASTRION_CONFLICT_WINDOW_MS`: two writes closer than this are "neither clearly prior". */
export const DEFAULT_CONFLICT_WINDOW_MS = 2000;

/**
 * The conflict window from the environment (`ASTRION_CONFLICT_WINDOW_MS`, whole milliseconds;
 * 0 leaves rule 3 only the requests stamped at the very same millisecond). An unusable value
 * falls back to the default rather than failing a write.
 */
export function conflictWindowMs(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env.ASTRION_CONFLICT_WINDOW_MS?.trim();
  if (!raw) return DEFAULT_CONFLICT_WINDOW_MS;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= 3_600_000 ? n : DEFAULT_CONFLICT_WINDOW_MS;
}

/** One write, as the store hands it to {@link applyWrite}. */
export interface WriteInput {
  key: string;
  value: string;
  mode: WriteMode;
  /** Required for overwrites (0 = "the key had no value"); ignored for appends. */
  expected_version?: number | null;
  author: string;
  author_role: AuthorRole;
  /** When the write was requested (stamped as it reached the server); default `ctx.now`. */
  requested_at?: Date;
}

/** Time and ids for one arbitration. */
export interface ArbitrationContext {
  /** When the write is arbitrated (its place in the write queue came up). */
  now: Date;
  /** Rule 3's window in ms; see {@link conflictWindowMs}. */
  windowMs: number;
  /** A fresh `conflict_<hex>` id, called only when a conflict is created. */
  newConflictId: () => string;
}

/** The file after a write or decision, and what happened. */
export interface Outcome {
  file: SharedContextFile;
  decision: Decision;
}

function side(which: Side["side"], author: string | null, role: AuthorRole | null): Side {
  return { side: which, author, author_role: role };
}

function currentSide(entry: Entry | null): Side {
  const out = side("current", entry?.author ?? null, entry?.author_role ?? null);
  if (!entry) return out;
  const role = authorityRoleOf(entry);
  return { ...out, ...(entry.decided_by ? { decided_by: entry.decided_by } : {}), ...(role !== entry.author_role ? { authority: role } : {}) };
}

/** The higher-ranked of two roles (the first on a tie). */
function higherRole(a: AuthorRole, b: AuthorRole): AuthorRole {
  return AUTHORITY[b] > AUTHORITY[a] ? b : a;
}

/**
 * The role whose rank an entry's value holds in rule 1: its `authority` (the highest of its
 * writers since the last overwrite, or a person who decided it), never below its last writer's.
 * Older files without `authority`: a person when a person decided it, else its author's.
 */
function authorityRoleOf(entry: Pick<Entry, "author_role" | "decided_by" | "authority">): AuthorRole {
  const recorded = entry.authority ?? (entry.decided_by ? "person" : entry.author_role);
  return higherRole(recorded, entry.author_role);
}

/** Rank of the value an entry holds in rule 1 (see {@link authorityRoleOf}). */
function authorityOf(entry: Pick<Entry, "author_role" | "decided_by" | "authority">): number {
  return AUTHORITY[authorityRoleOf(entry)];
}

/**
 * The time rule 2 gives an entry's value: when the latest decision behind it was requested — a
 * person's decision, else the write's request, else (files from before request times) its write.
 */
function requestedAtOf(entry: Pick<Entry, "requested_at" | "decided_at" | "updated_at">): string {
  return entry.decided_at ?? entry.requested_at ?? entry.updated_at;
}

/** The time rule 2 gives a proposal: its request time (older files: when it was arbitrated). */
function proposalRequestedAt(p: Pick<Proposal, "requested_at" | "at">): string {
  return p.requested_at ?? p.at;
}

function proposedSide(p: Proposal): Side {
  return side("proposed", p.author, p.author_role);
}

function withHistory(file: SharedContextFile, resolution: Resolution | null): SharedContextFile["history"] {
  const history = file.history ?? [];
  if (!resolution) return history;
  return [...history, resolution].slice(-MAX_HISTORY);
}

function checkLength(key: string, value: string): void {
  if (value.length > MAX_VALUE_LENGTH) {
    throw new ValidationError(`The value of "${key}" would exceed ${MAX_VALUE_LENGTH} characters; overwrite it with a summary instead.`, {
      key,
      length: value.length,
    });
  }
}

function checkRoom(file: SharedContextFile, key: string): void {
  if (!hasOwnKey(file.entries, key) && Object.keys(file.entries).length >= MAX_ENTRIES) {
    throw new ValidationError(`The shared context already holds ${MAX_ENTRIES} keys; reuse an existing key.`, { key });
  }
}

/** The appended value: the old text, a newline, the new text (no leading newline on an empty value). */
export function appendValue(current: string | null, addition: string): string {
  return current === null || current === "" ? addition : `${current}\n${addition}`;
}

/** Which rule settles a stale overwrite, and for whom (see the file comment). */
function arbitrateStale(
  current: Pick<Entry, "author_role" | "decided_by" | "authority" | "updated_at" | "requested_at" | "decided_at">,
  proposed: Pick<Proposal, "author_role" | "at" | "requested_at">,
  windowMs: number,
): { rule: Exclude<ResolutionRule, "fresh" | "person_decision" | "unknown_version">; outcome: "applied" | "rejected" | "pending" } {
  const rankP = AUTHORITY[proposed.author_role];
  const rankC = authorityOf(current);
  if (rankP !== rankC) return { rule: "leader_wins", outcome: rankP > rankC ? "applied" : "rejected" };
  const dt = Date.parse(proposalRequestedAt(proposed)) - Date.parse(requestedAtOf(current));
  // Two requests at the same instant are never "clearly later", whatever the window.
  if (dt === 0 || Math.abs(dt) < windowMs) return { rule: "awaiting_person", outcome: "pending" };
  return { rule: "later_wins", outcome: dt > 0 ? "applied" : "rejected" };
}

/**
 * Applies one write to `file` by the rules above and returns the new file and the decision.
 * `file` is not modified.
 * @throws ValidationError when an overwrite has no `expected_version`, a value would grow past
 *   {@link MAX_VALUE_LENGTH}, or a new key would exceed {@link MAX_ENTRIES}.
 * @throws ConflictError when the write would wait for a person while {@link MAX_PENDING} already do.
 */
export function applyWrite(file: SharedContextFile, input: WriteInput, ctx: ArbitrationContext): Outcome {
  const at = ctx.now.toISOString();
  const requestedAt = (input.requested_at ?? ctx.now).toISOString();
  const before = ownValue(file.entries, input.key) ?? null;
  const currentVersion = before?.version ?? 0;
  const proposed: Proposal = {
    value: input.value,
    mode: input.mode,
    author: input.author,
    author_role: input.author_role,
    expected_version: input.mode === "append" ? null : (input.expected_version ?? null),
    at,
    requested_at: requestedAt,
  };
  // An overwrite replaces the value, so it ranks as its writer; an append keeps what it extends.
  const newEntry = (value: string, authority: AuthorRole): Entry => ({
    key: input.key,
    value,
    version: currentVersion + 1,
    author: input.author,
    author_role: input.author_role,
    updated_at: at,
    requested_at: requestedAt,
    authority,
  });

  if (input.mode === "append") {
    const value = appendValue(before?.value ?? null, input.value);
    checkLength(input.key, value);
    checkRoom(file, input.key);
    const entry = newEntry(value, before ? higherRole(authorityRoleOf(before), input.author_role) : input.author_role);
    return {
      file: { ...file, entries: { ...file.entries, [input.key]: entry } },
      decision: { key: input.key, mode: "append", outcome: "applied", rule: "append", version: entry.version, before, entry, proposed, conflict: null, resolution: null },
    };
  }

  const expected = proposed.expected_version;
  if (expected === null) {
    throw new ValidationError("An overwrite needs expected_version: the version you read (0 for a new key).", { key: input.key });
  }
  checkLength(input.key, input.value);

  let rule: ResolutionRule;
  let outcome: Decision["outcome"];
  if (expected > currentVersion) {
    rule = "unknown_version";
    outcome = "rejected";
  } else if (expected === currentVersion) {
    rule = "fresh";
    outcome = "applied";
  } else {
    // expected < currentVersion implies the key has a value.
    ({ rule, outcome } = arbitrateStale(before!, proposed, ctx.windowMs));
  }

  if (outcome === "applied") checkRoom(file, input.key);
  if (outcome === "pending" && file.pending.length >= MAX_PENDING) {
    throw new ConflictError(`${MAX_PENDING} writes already wait for a person to decide; "${input.key}" was not changed. Read the shared context and build on the current value.`, {
      key: input.key,
    });
  }
  const entry = outcome === "applied" ? newEntry(input.value, input.author_role) : before;
  const conflict: Conflict | null =
    outcome === "pending" ? { conflict_id: ctx.newConflictId(), key: input.key, current: before, proposed, created_at: at } : null;
  const resolution: Resolution = {
    key: input.key,
    rule,
    outcome,
    winner: outcome === "applied" ? proposedSide(proposed) : outcome === "rejected" ? currentSide(before) : null,
    loser: outcome === "applied" ? currentSide(before) : outcome === "rejected" ? proposedSide(proposed) : null,
    current_value: before?.value ?? null,
    current_version: currentVersion,
    proposed_value: input.value,
    expected_version: expected,
    version: entry?.version ?? 0,
    conflict_id: conflict?.conflict_id ?? null,
    decided_by: null,
    at,
    current_requested_at: before ? requestedAtOf(before) : null,
    proposed_requested_at: requestedAt,
    window_ms: ctx.windowMs,
  };
  const entries = outcome === "applied" && entry ? { ...file.entries, [input.key]: entry } : file.entries;
  return {
    file: { ...file, entries, pending: conflict ? [...file.pending, conflict] : file.pending, history: withHistory(file, resolution) },
    decision: { key: input.key, mode: "overwrite", outcome, rule, version: resolution.version, before, entry, proposed, conflict, resolution },
  };
}

/**
 * Applies a person's decision of a pending conflict, requested at `now`. `take_proposed` writes
 * the proposal over whatever the key holds now (version + 1); `keep_current` leaves the value and
 * its version alone — a version names a value, and bumping it without a change would make every
 * other writer's fresh overwrite stale for nothing. Either way the value the person chose is
 * marked `decided_by` / `decided_at`, so it ranks as a person's: an agent's stale write cannot
 * undo the decision (rule 1), not even by sending the losing proposal again later. The conflict
 * leaves `pending` and a `person_decision` resolution is recorded with both values.
 * @throws NotFoundError when no conflict has that id; ConflictError when it was already decided.
 */
export function applyDecision(
  file: SharedContextFile,
  conflictId: string,
  choice: DecisionChoice,
  decidedBy: string,
  now: Date,
): Outcome {
  const conflict = file.pending.find((c) => c.conflict_id === conflictId);
  if (!conflict) {
    const decided = (file.history ?? []).some((r) => r.conflict_id === conflictId && r.rule === "person_decision");
    if (decided) throw new ConflictError(`Conflict ${conflictId} was already decided.`, { conflict_id: conflictId });
    throw new NotFoundError(`No pending conflict ${conflictId}.`, { conflict_id: conflictId });
  }
  const at = now.toISOString();
  const before = ownValue(file.entries, conflict.key) ?? null;
  const currentVersion = before?.version ?? 0;
  const take = choice === "take_proposed";
  const entry: Entry | null = take
    ? {
        key: conflict.key,
        value: conflict.proposed.value,
        version: currentVersion + 1,
        author: conflict.proposed.author,
        author_role: conflict.proposed.author_role,
        updated_at: at,
        requested_at: at,
        decided_by: decidedBy,
        decided_at: at,
        authority: "person",
      }
    : before && { ...before, decided_by: decidedBy, decided_at: at, authority: "person" };
  const resolution: Resolution = {
    key: conflict.key,
    rule: "person_decision",
    outcome: take ? "applied" : "rejected",
    winner: take ? proposedSide(conflict.proposed) : currentSide(before),
    loser: take ? currentSide(before) : proposedSide(conflict.proposed),
    current_value: before?.value ?? null,
    current_version: currentVersion,
    proposed_value: conflict.proposed.value,
    expected_version: conflict.proposed.expected_version,
    version: entry?.version ?? 0,
    conflict_id: conflictId,
    decided_by: decidedBy,
    at,
    current_requested_at: before ? requestedAtOf(before) : null,
    proposed_requested_at: proposalRequestedAt(conflict.proposed),
  };
  const entries = entry ? { ...file.entries, [conflict.key]: entry } : file.entries;
  return {
    file: { ...file, entries, pending: file.pending.filter((c) => c.conflict_id !== conflictId), history: withHistory(file, resolution) },
    decision: {
      key: conflict.key,
      mode: "overwrite",
      outcome: resolution.outcome,
      rule: "person_decision",
      version: resolution.version,
      before,
      entry,
      proposed: conflict.proposed,
      conflict,
      resolution,
    },
  };
}

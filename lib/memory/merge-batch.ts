/**
 * A batch of (redacted) candidates merged into the entries held: each one added, or folded into
 * the older entry it repeats or contradicts (./merge.ts decides), later candidates of the batch
 * seeing the earlier ones. Pure (ids and the time are given), so the service can run it again
 * over entries loaded anew when another instance's change refused its save.
 */
import { applyContradiction, applyDuplicate, decideMerge, type MergeInput, type StatementShape } from "./merge";
import type { MemoryEntry } from "./schema";

/** What one candidate became: added, or merged into an older entry. */
export interface MergedCandidate {
  entry: MemoryEntry;
  action: "added" | "duplicate" | "contradiction";
}

function poolKey(kind: string, project: string | null): string {
  return `${kind}\u0000${project ?? ""}`;
}

/** What {@link mergeBatch} needs besides the candidates. */
export interface BatchContext {
  author: MemoryEntry["author"];
  /** ISO time of the change. */
  now: string;
  newId: () => string;
  /** The statements' shapes cached by entry id (an entry merged into is dropped from it). */
  shapes: Map<string, StatementShape>;
}

/**
 * Merges `candidates` into `entries`: the entries changed (each once, as finally stored) and what
 * each candidate became (showing its entry as finally stored).
 */
export function mergeBatch(entries: Iterable<MemoryEntry>, candidates: readonly MergeInput[], ctx: BatchContext): { changed: MemoryEntry[]; results: MergedCandidate[] } {
  const pools = new Map<string, MemoryEntry[]>();
  for (const e of entries) {
    const key = poolKey(e.kind, e.project_path);
    const pool = pools.get(key) ?? [];
    pool.push(e);
    pools.set(key, pool);
  }
  const changed = new Map<string, MemoryEntry>();
  const results: MergedCandidate[] = [];
  for (const c of candidates) {
    const grant = c.level === "restricted" ? [...new Set(c.grant)] : [];
    const key = poolKey(c.kind, c.project_path);
    const pool = pools.get(key) ?? [];
    pools.set(key, pool);
    const decision = decideMerge(c, pool, ctx.shapes);
    let entry: MemoryEntry;
    if (decision.action === "add") {
      const now = ctx.now;
      entry = { id: ctx.newId(), kind: c.kind, statement: c.statement, subject: c.subject, project_path: c.project_path, level: c.level, grant, source: c.source, created_at: now, updated_at: now, confidence: c.confidence, history: [], redactions: c.redactions, author: ctx.author };
      pool.push(entry);
      results.push({ entry, action: "added" });
    } else {
      const input = { ...c, grant };
      entry = decision.action === "duplicate" ? applyDuplicate(decision.target, input, ctx.now) : applyContradiction(decision.target, input, ctx.now);
      pool[pool.indexOf(decision.target)] = entry;
      ctx.shapes.delete(entry.id);
      results.push({ entry, action: decision.action });
    }
    changed.set(entry.id, entry);
  }
  // A batch may touch one entry twice; every result shows it as finally stored.
  return { changed: [...changed.values()], results: results.map((r) => ({ ...r, entry: changed.get(r.entry.id)! })) };
}

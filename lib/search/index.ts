import "server-only";
/**
 * Full-text search over every conversation's messages, the leader's and the sub-agents' (issue 9):
 * SQLite FTS5 in `<data root>/search/history.sqlite`, kept in step with the conversation files by
 * observing the store. The public face: {@link startSearch} at boot, then `search()`, `report()`.
 */
import path from "node:path";
import type { ConversationCatalog } from "@/lib/store";
import { z } from "zod";
import { FLUSH_DELAY_MS, SearchIndexer } from "./indexer";

export { SearchIndexer } from "./indexer";
export * from "@/lib/contracts/search";

/**
 * `ASTRION_SEARCH_FLUSH_MS`: how long the index waits to write a change (default
 * {@link FLUSH_DELAY_MS}); larger groups more changes per transaction. Tests set it high to show
 * that a crash before the index write loses nothing.
 */
function flushDelayFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.ASTRION_SEARCH_FLUSH_MS?.trim();
  if (!raw) return FLUSH_DELAY_MS;
  const parsed = z.coerce.number().int().min(1).max(3_600_000).safeParse(raw);
  if (!parsed.success) {
    console.error(`[astrion] ASTRION_SEARCH_FLUSH_MS=${raw} is not a whole number of milliseconds from 1 to 3600000; using ${FLUSH_DELAY_MS}`);
    return FLUSH_DELAY_MS;
  }
  return parsed.data;
}

/** The search database of a data folder (an addition to the seed's layout). */
export function searchFile(root: string): string {
  return path.join(root, "search", "history.sqlite");
}

/**
 * Starts the search index of a store's data folder: observes every change the store makes from
 * now on, opens (or begins rebuilding) the database and reconciles it in the background.
 */
export async function startSearch(root: string, store: ConversationCatalog, env: NodeJS.ProcessEnv = process.env): Promise<SearchIndexer> {
  const indexer = new SearchIndexer(searchFile(root), store, { flushDelayMs: flushDelayFromEnv(env) });
  await indexer.start();
  // Observed from here on: at boot nothing has written yet (the engine resumes after this), and
  // whatever the reconcile reads later is the newest state anyway.
  store.observe(indexer.observe);
  return indexer;
}

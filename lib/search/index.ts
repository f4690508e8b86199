import "server-only";
/**
 * Full-text search over every conversation's messages, the leader's and the sub-agents' (issue 9):
 * SQLite FTS5 in `<data root>/search/history.sqlite`, kept in step with the conversation files by
 * observing the store. The public face: {@link startSearch} at boot, then `search()`, `report()`.
 */
import path from "node:path";
import type { ConversationStore } from "@/lib/store";
import { SearchIndexer } from "./indexer";

export { SearchIndexer, FLUSH_DELAY_MS, MAX_QUEUED } from "./indexer";
export * from "./schema";

/** The search database of a data folder (an addition to the seed's layout). */
export function searchFile(root: string): string {
  return path.join(root, "search", "history.sqlite");
}

/**
 * Starts the search index of a store's data folder: observes every change the store makes from
 * now on, opens (or begins rebuilding) the database and reconciles it in the background.
 */
export async function startSearch(root: string, store: ConversationStore): Promise<SearchIndexer> {
  const indexer = new SearchIndexer(searchFile(root), store);
  await indexer.start();
  // Observed from here on: at boot nothing has written yet (the engine resumes after this), and
  // whatever the reconcile reads later is the newest state anyway.
  store.observe(indexer.observe);
  return indexer;
}

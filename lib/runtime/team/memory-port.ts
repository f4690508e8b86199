import "server-only";
/**
 * The engine's view of the memory service (lib/memory/service.ts, `(await getApp()).memory`):
 * the two calls it makes, recall and upsert. Null while the app has no memory service.
 */
import type { AstrionApp } from "@/lib/server/app";

/** An entry as the engine reads it (a subset of `MemoryEntry`). */
export interface RecalledEntry {
  id: string;
  kind: string;
  level: string;
  statement: string;
  subject: string;
  source: { conversation_id: string | null; message_ids: string[] };
}

/** One hit of a recall. */
export interface RecallHit {
  entry: RecalledEntry;
  score: number;
}

/** The calls of the memory service the engine uses. */
export interface MemoryPort {
  recall(q: { text: string; reader: { project_path: string | null; role_id: string | null }; limit?: number }): Promise<RecallHit[]>;
  upsert(candidates: unknown[]): Promise<{ added: Array<{ id: string; level: string; kind: string }>; updated: Array<{ id: string; level: string; kind: string }> }>;
}

/** The app's memory service, or null when it has none. */
export async function memoryOf(app: AstrionApp): Promise<MemoryPort | null> {
  return ((app as AstrionApp & { memory?: MemoryPort }).memory ?? null) as MemoryPort | null;
}

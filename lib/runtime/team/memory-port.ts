import "server-only";
/**
 * The engine's view of the memory service (lib/memory/service.ts, `(await getApp()).memory`):
 * the two calls it makes, recall and upsert, so the engine's modules name only what they use.
 */
import type { MemoryService, RecallHit } from "@/lib/memory/service";
import type { AstrionApp } from "@/lib/server/app";

export type { RecallHit };

/** The calls of the memory service the engine uses. */
export type MemoryPort = Pick<MemoryService, "recall" | "upsert">;

/** The app's memory service. */
export async function memoryOf(app: AstrionApp): Promise<MemoryPort | null> {
  return app.memory ?? null;
}

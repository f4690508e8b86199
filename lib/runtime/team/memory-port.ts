import "server-only";
/**
 * The engine's view of the memory service (lib/memory/service.ts, handed to the engine by the
 * composition root): the two calls it makes, recall and upsert, so the engine's modules name only
 * what they use.
 */
import type { MemoryService, RecallHit } from "@/lib/memory/service";

export type { RecallHit };

/** The calls of the memory service the engine uses. */
export type MemoryPort = Pick<MemoryService, "recall" | "upsert">;

/** The engine's memory service, or null without one. */
export async function memoryOf(deps: { readonly memory: MemoryPort | null }): Promise<MemoryPort | null> {
  return deps.memory ?? null;
}

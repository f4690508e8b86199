/**
 * Limits of the knowledge index, configurable by environment variable (docs/configuration.md).
 * A bad value is reported on the server's log and the default used. Pure.
 */
import { z } from "zod";

/** The limits in force. */
export interface KnowledgeLimits {
  /** Bytes read of one file; a larger file has only its beginning indexed (and is marked truncated). */
  maxFileBytes: number;
  /** Files indexed per project; the walk stops there and counts the rest as skipped. */
  maxFiles: number;
  /** How long `search_knowledge` waits for a build or refresh before answering from what is indexed. */
  waitMs: number;
  /** A search refreshes the index (stat of every file) when the last refresh is older than this. */
  refreshMs: number;
}

/** Defaults: 256 KiB per file, 20,000 files, 3 s of waiting, a refresh at most every 2 s. */
export const DEFAULT_KNOWLEDGE_LIMITS: Readonly<KnowledgeLimits> = Object.freeze({
  maxFileBytes: 256 * 1024,
  maxFiles: 20_000,
  waitMs: 3000,
  refreshMs: 2000,
});

const ENV: Record<keyof KnowledgeLimits, { name: string; min: number; max: number }> = {
  maxFileBytes: { name: "ASTRION_KNOWLEDGE_MAX_FILE_BYTES", min: 1024, max: 16 * 1024 * 1024 },
  maxFiles: { name: "ASTRION_KNOWLEDGE_MAX_FILES", min: 1, max: 1_000_000 },
  waitMs: { name: "ASTRION_KNOWLEDGE_WAIT_MS", min: 0, max: 60_000 },
  refreshMs: { name: "ASTRION_KNOWLEDGE_REFRESH_MS", min: 0, max: 3_600_000 },
};

/** The limits from `env`, each within its bounds; a value out of bounds or not a number falls back to the default. */
export function knowledgeLimitsFromEnv(env: Record<string, string | undefined>, log: (message: string) => void = console.error): KnowledgeLimits {
  const out = { ...DEFAULT_KNOWLEDGE_LIMITS };
  for (const [field, spec] of Object.entries(ENV) as Array<[keyof KnowledgeLimits, (typeof ENV)[keyof KnowledgeLimits]]>) {
    const raw = env[spec.name]?.trim();
    if (!raw) continue;
    const parsed = z.coerce.number().int().min(spec.min).max(spec.max).safeParse(raw);
    if (parsed.success) out[field] = parsed.data;
    else log(`[astrion] ${spec.name}=${raw} is not a whole number from ${spec.min} to ${spec.max}; using ${out[field]}`);
  }
  return out;
}

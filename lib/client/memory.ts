/** Query factory and commands of the memory API (`/api/memory/...`). */
import { queryOptions } from "@tanstack/react-query";
import { DeletedResponseSchema } from "@/lib/contracts/http";
import {
  CreateMemoryAnswerSchema,
  MemoryEntryAnswerSchema,
  MemoryListAnswerSchema,
  RedactionSettingsBodySchema,
  type CreateMemoryBody,
  type MemoryKind,
  type MemoryLevel,
  type PatchMemoryBody,
} from "@/lib/memory/schema";
import { apiFetch } from "./api";

/** Filters of the Memory page. */
export interface MemoryFilter {
  q?: string;
  kind?: MemoryKind;
  level?: MemoryLevel;
  project?: string;
  limit?: number;
}

/** `GET /api/memory/entries`: searched or newest first, filtered, paged. */
export function memoryEntriesQuery(filter: MemoryFilter) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filter)) if (v !== undefined && v !== "") params.set(k, String(v));
  return queryOptions({
    queryKey: ["memory-entries", filter] as const,
    queryFn: ({ signal }) => apiFetch(`/api/memory/entries?${params.toString()}`, MemoryListAnswerSchema, { signal }),
    staleTime: 5_000,
  });
}

/** `POST /api/memory/entries`: adds an entry by hand. */
export function createMemoryEntry(body: CreateMemoryBody) {
  return apiFetch("/api/memory/entries", CreateMemoryAnswerSchema, { method: "POST", body });
}

/** `PATCH /api/memory/entries/{id}`: edits or re-levels one entry. */
export function patchMemoryEntry(id: string, body: PatchMemoryBody) {
  return apiFetch(`/api/memory/entries/${encodeURIComponent(id)}`, MemoryEntryAnswerSchema, { method: "PATCH", body });
}

/** `DELETE /api/memory/entries/{id}`. */
export function deleteMemoryEntry(id: string) {
  return apiFetch(`/api/memory/entries/${encodeURIComponent(id)}`, DeletedResponseSchema, { method: "DELETE" });
}

/** `GET /api/memory/redaction`: the configured account-id patterns. */
export function memoryRedactionQuery() {
  return queryOptions({
    queryKey: ["memory-redaction"] as const,
    queryFn: ({ signal }) => apiFetch("/api/memory/redaction", RedactionSettingsBodySchema, { signal }),
    staleTime: 5_000,
  });
}

/** `PUT /api/memory/redaction`: replaces them. */
export function saveMemoryRedaction(account_patterns: string[]) {
  return apiFetch("/api/memory/redaction", RedactionSettingsBodySchema, { method: "PUT", body: { account_patterns } });
}

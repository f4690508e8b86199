/**
 * Browser access to a conversation's shared context (seed 003 §4.3): the query, a person's
 * decision of a pending conflict, a person's write, and how a live timeline tells the view to
 * refetch. Imports only the pure schemas, never the server-only `@/lib/shared-context` index.
 */
import { queryOptions } from "@tanstack/react-query";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import {
  DecisionBodySchema,
  DecisionResponseSchema,
  SharedContextResponseSchema,
  WriteBodySchema,
  type DecisionBody,
  type WriteBody,
} from "@/lib/shared-context/schema";
import { apiFetch, bodyOf } from "./api";

function sharedContextPath(id: string): string {
  return `/api/conversations/${encodeURIComponent(id)}/shared-context`;
}

/** Query keys of the shared context. */
export const sharedContextKeys = {
  detail: (conversationId: string) => ["conversations", "shared-context", conversationId] as const,
};

/** One conversation's shared context: entries, writes waiting for a person, recent resolutions. */
export function sharedContextQuery(conversationId: string) {
  return queryOptions({
    queryKey: sharedContextKeys.detail(conversationId),
    queryFn: async ({ signal }) =>
      (await apiFetch(sharedContextPath(conversationId), SharedContextResponseSchema, { signal })).shared_context,
    // Changes arrive as timeline events, which invalidate this query; no polling needed.
    staleTime: 30_000,
  });
}

/** `POST …/shared-context/decisions`: a person keeps the current value or takes the proposed one. */
export async function decideSharedContextConflict(conversationId: string, body: DecisionBody) {
  return apiFetch(`${sharedContextPath(conversationId)}/decisions`, DecisionResponseSchema, {
    method: "POST",
    body: bodyOf(DecisionBodySchema, body),
  });
}

/** `PUT …/shared-context`: a person writes a key (arbitrated like any write; a person ranks like the leader). */
export async function writeSharedContextEntry(conversationId: string, body: WriteBody) {
  return apiFetch(sharedContextPath(conversationId), DecisionResponseSchema, {
    method: "PUT",
    body: bodyOf(WriteBodySchema, body),
  });
}

/** True for a timeline record about the shared context (`resource: "shared_context:<key>"`). */
export function isSharedContextRecord(record: Pick<TimelineRecord, "resource">): boolean {
  return typeof record.resource === "string" && record.resource.startsWith("shared_context:");
}

/**
 * A value that changes whenever a shared-context record arrives live: the message id of the
 * latest such record ("" when none). The view refetches when it changes.
 */
export function sharedContextRevision(records: readonly TimelineRecord[]): string {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    if (record && isSharedContextRecord(record)) return record.envelope.message_id;
  }
  return "";
}

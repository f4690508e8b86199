/** Query factory and merge rule for a conversation's audit timeline (the timeline view's data). */
import { keepPreviousData, queryOptions } from "@tanstack/react-query";
import { TimelineResponseSchema } from "@/lib/contracts/http";
import type { TimelineRecord } from "@/lib/contracts/timeline-record";
import { apiFetch } from "./api";

/** Query keys of timeline data. */
const timelineKeys = {
  timeline: (conversationId: string, epoch: number) => ["conversations", "timeline", conversationId, epoch] as const,
};

/**
 * The whole timeline of a conversation, fetched once per snapshot `epoch`: records that arrive
 * later come over SSE (`LiveState.timeline`) and are appended with {@link mergeTimeline}, so this
 * never refetches on its own. The trace filter is applied in the browser, so switching traces
 * costs no request and the filter can list every trace.
 */
export function timelineQuery(conversationId: string, epoch: number) {
  return queryOptions({
    queryKey: timelineKeys.timeline(conversationId, epoch),
    queryFn: ({ signal }) =>
      apiFetch(`/api/conversations/${encodeURIComponent(conversationId)}/timeline`, TimelineResponseSchema, { signal }),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    // A new snapshot (reconnect) refetches under a new key; keep showing the old rows meanwhile.
    placeholderData: keepPreviousData,
  });
}

/**
 * `base` (fetched, file order) followed by the records of `extra` (streamed, arrival order) it
 * does not already hold, told apart by envelope message id. Appending keeps the file's order,
 * which is the order the runtime recorded things in.
 */
export function mergeTimeline(base: readonly TimelineRecord[], extra: readonly TimelineRecord[]): TimelineRecord[] {
  if (extra.length === 0) return [...base];
  const seen = new Set(base.map((r) => r.envelope.message_id));
  const merged = [...base];
  for (const r of extra) {
    if (seen.has(r.envelope.message_id)) continue;
    seen.add(r.envelope.message_id);
    merged.push(r);
  }
  return merged;
}

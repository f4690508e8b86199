import "server-only";
/**
 * What the server holds in memory for conversations, for operators (`GET /api/health` →
 * `resident`): the figures go back down when conversations are let go (lib/runtime/residency.ts),
 * so a number that only grows points at a leak.
 */
import type { ResidentReport } from "@/lib/contracts/http";
import { snapshotCacheFor } from "@/lib/sse";
import type { AstrionApp } from "./app";

/** The counts now. */
export function residentReport(app: AstrionApp): ResidentReport {
  const { bus } = app;
  const topics = bus.stats();
  const runtime = app.engine.residency();
  return {
    conversations_open: app.store.openCount,
    runs: runtime.runs,
    runs_in_use: runtime.in_use,
    runs_working: runtime.working,
    runs_kept_for_notices: runtime.kept_for_notices,
    runs_releasing: runtime.releasing,
    bus_topics: topics.conversation_topics,
    bus_buffered_events: topics.buffered_events,
    bus_agent_topics: topics.agent_topics,
    sse_streams: app.streams.open(),
    snapshot_frames: snapshotCacheFor(bus).size,
    log_files_open: app.lines.openFiles(),
  };
}

import "server-only";
/**
 * Observability for the guarantee that no request or tool call blocks the server: the process
 * samples its own event-loop delay (`perf_hooks.monitorEventLoopDelay`, a 10 ms timer whose
 * lateness is recorded) and keeps the maximum of each second for the last minute, served in
 * `GET /api/health` as `event_loop`. One monitor per process, kept on globalThis (Next may load
 * this module in several bundles).
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { EventLoopReport } from "@/lib/api/contract";

/** Seconds of history kept. */
export const EVENT_LOOP_WINDOW_S = 60;
const RESOLUTION_MS = 10;
const KEY = Symbol.for("astrion.eventLoopMonitor");

interface Monitor {
  seconds: Array<{ at: string; max_ms: number }>;
  startedAt: string;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Starts sampling (idempotent). */
export function startEventLoopMonitor(): void {
  const g = globalThis as unknown as Record<symbol, Monitor | undefined>;
  if (g[KEY]) return;
  const monitor: Monitor = { seconds: [], startedAt: new Date().toISOString() };
  g[KEY] = monitor;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const tick = setInterval(() => {
    // The histogram's values are in nanoseconds; max is 0 when nothing was recorded yet.
    monitor.seconds.push({ at: new Date().toISOString(), max_ms: round(histogram.max / 1e6) });
    if (monitor.seconds.length > EVENT_LOOP_WINDOW_S) monitor.seconds.shift();
    histogram.reset();
  }, 1000);
  tick.unref();
}

/** The per-second maxima of the last minute, oldest first, and the largest of them. */
export function eventLoopReport(): EventLoopReport {
  startEventLoopMonitor();
  const monitor = (globalThis as unknown as Record<symbol, Monitor>)[KEY]!;
  const seconds = [...monitor.seconds];
  return {
    resolution_ms: RESOLUTION_MS,
    window_s: EVENT_LOOP_WINDOW_S,
    monitoring_since: monitor.startedAt,
    max_ms: seconds.reduce((m, s) => Math.max(m, s.max_ms), 0),
    max_ms_per_second: seconds,
  };
}

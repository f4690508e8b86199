import "server-only";
/**
 * Observability for the guarantee that no request or tool call blocks the server: the process
 * samples its own event-loop delay (`perf_hooks.monitorEventLoopDelay`, a 10 ms timer whose
 * lateness is recorded) and keeps the maximum of each second for the last minute, served in
 * `GET /api/health` as `event_loop`. Beside each second's delay it keeps the CPU time the process
 * used in it and its garbage-collection pauses, so a late second can be told apart: much CPU is the
 * app's own work, a long GC pause is the collector, little of either is time the process waited
 * (for a core, the disk, a page). One monitor per process (a process singleton: Next may load this
 * module in several bundles).
 */
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import type { EventLoopReport } from "@/lib/contracts/http";
import { processSingleton } from "./singleton";

/** Seconds of history kept. */
const EVENT_LOOP_WINDOW_S = 60;
const RESOLUTION_MS = 10;

type Second = EventLoopReport["max_ms_per_second"][number];

interface Monitor {
  seconds: Second[];
  startedAt: string;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** The main thread's CPU time so far, in ms (user + system). */
function threadCpuMs(): number {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}

/** Starts sampling (idempotent). */
export function startEventLoopMonitor(): Monitor {
  return processSingleton("eventLoopMonitor", makeMonitor);
}

function makeMonitor(): Monitor {
  const monitor: Monitor = { seconds: [], startedAt: new Date().toISOString() };
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let gcMs = 0;
  let gcMaxMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
    }
  });
  gc.observe({ entryTypes: ["gc"] });
  // The longest gap between two ticks of a 10 ms timer in this second, and the main thread's own
  // CPU time in it: a gap the loop spent computing is the app's; one with little CPU in it is
  // time the thread waited (for a core taken by other processes, a page, the disk).
  let gapMs = 0;
  let gapCpuMs = 0;
  let lastWall = performance.now();
  let lastCpu = threadCpuMs();
  const sampler = setInterval(() => {
    const wall = performance.now();
    const cpuNow = threadCpuMs();
    if (wall - lastWall > gapMs) {
      gapMs = wall - lastWall;
      gapCpuMs = cpuNow - lastCpu;
    }
    lastWall = wall;
    lastCpu = cpuNow;
  }, RESOLUTION_MS);
  sampler.unref();
  let cpu = process.cpuUsage();
  const tick = setInterval(() => {
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    // The histogram's values are in nanoseconds; max is 0 when nothing was recorded yet. The
    // sampler's longest gap is a second witness of the same lateness (its 10 ms timer came that
    // much late): the larger is kept, so a stall the histogram's timer did not see (seen on the
    // built server for a SIGSTOP while idle) still counts.
    monitor.seconds.push({
      at: new Date().toISOString(),
      max_ms: round(Math.max(histogram.max / 1e6, gapMs - RESOLUTION_MS)),
      cpu_ms: round((used.user + used.system) / 1000),
      gc_ms: round(gcMs),
      gc_max_ms: round(gcMaxMs),
      longest_gap_ms: round(gapMs),
      longest_gap_cpu_ms: round(gapCpuMs),
    });
    if (monitor.seconds.length > EVENT_LOOP_WINDOW_S) monitor.seconds.shift();
    histogram.reset();
    gcMs = 0;
    gcMaxMs = 0;
    gapMs = 0;
    gapCpuMs = 0;
  }, 1000);
  tick.unref();
  return monitor;
}

/** The per-second maxima of the last minute, oldest first, and the largest of them. */
export function eventLoopReport(): EventLoopReport {
  const monitor = startEventLoopMonitor();
  const seconds = [...monitor.seconds];
  return {
    resolution_ms: RESOLUTION_MS,
    window_s: EVENT_LOOP_WINDOW_S,
    monitoring_since: monitor.startedAt,
    max_ms: seconds.reduce((m, s) => Math.max(m, s.max_ms), 0),
    max_ms_per_second: seconds,
  };
}

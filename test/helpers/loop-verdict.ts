/**
 * Whose fault a late second was. The server records the largest event-loop delay of each second,
 * with its CPU time and GC pauses, and the longest gap between two ticks of its 10 ms timer with
 * the main thread's own CPU time in that gap; an idle probe process beside it records each time
 * its own 10 ms timer came late. A second over the budget is the machine's when
 * - the probe was held too, for at least half as long as the server and at least by the server's
 *   excess over the budget (the host stalled both), or
 * - the server's main thread used at most the budget's CPU in its longest gap, and that gap is
 *   the late one: its own work fitted the budget and the rest of the time it waited (for a core
 *   other processes held: an idle probe wakes first and does not see that).
 * Otherwise it is the app's. With no probe record for that time and no gap figures, it is the app's.
 */

/** One second of the server's record (GET /api/health → event_loop.max_ms_per_second). */
export interface ServerSecond {
  at: string;
  max_ms: number;
  cpu_ms?: number;
  gc_ms?: number;
  gc_max_ms?: number;
  longest_gap_ms?: number;
  longest_gap_cpu_ms?: number;
}

/** A tick of the probe's timer that came `late_ms` late, noticed at `at` (epoch ms). */
export interface ProbeStall {
  at: number;
  late_ms: number;
}

export interface ProbeWindow {
  /** The probe's record covers [startedAt, now] (epoch ms). */
  startedAt: number;
  now: number;
  stalls: ProbeStall[];
}

interface LateSecond extends ServerSecond {
  /** The probe's longest stall overlapping the time that second's delay can have come from, or null with no probe record. */
  probe_ms: number | null;
  cause: "app" | "machine";
  /** For the machine's: the probe was held too, or the server's own work in the gap fitted the budget. */
  why?: "held" | "waited";
}

export interface Verdict {
  /** ok: no second over the budget; app: one or more were the app's; machine: all were the machine's. */
  kind: "ok" | "app" | "machine";
  late: LateSecond[];
  /** The seconds over the budget, the server's figures beside the probe's, one line each. */
  message: string;
}

/** The server's timer tick, in ms. */
const TICK_MS = 10;

/** Slack for the two processes' clocks and timers, in ms. */
const SLACK_MS = 50;

/** The probe's longest stall that overlaps what a server second's delay can span. */
function probeDuring(second: ServerSecond, probe: ProbeWindow | null): number | null {
  if (!probe) return null;
  const end = Date.parse(second.at) + SLACK_MS;
  // The delay recorded in a second ended in it, and began up to max_ms before it.
  const start = Date.parse(second.at) - 1000 - second.max_ms - SLACK_MS;
  if (probe.startedAt > start || probe.now < end) return null;
  let longest = 0;
  for (const s of probe.stalls) if (s.at >= start && s.at - s.late_ms <= end) longest = Math.max(longest, s.late_ms);
  return longest;
}

/** Why a late second is the machine's (`held`: the probe was held too; `waited`: the server's own work fitted), or null when it is the app's. */
function machineCause(second: ServerSecond, probeMs: number | null, budgetMs: number): "held" | "waited" | null {
  if (probeMs !== null && probeMs >= second.max_ms / 2 && probeMs >= second.max_ms - budgetMs) return "held";
  // The late gap is the longest one (the gap and the delay are two timers' views of one stretch: they
  // agree within a tick), and the thread's own work in it fitted the budget.
  const gap = second.longest_gap_ms;
  const gapCpu = second.longest_gap_cpu_ms;
  return gap !== undefined && gapCpu !== undefined && gap >= second.max_ms - TICK_MS && gapCpu <= budgetMs ? "waited" : null;
}

const fmt = (n: number | undefined | null) => (n === undefined || n === null ? "?" : String(n));

/** Judges the seconds of one attack against the budget. */
export function loopVerdict(seconds: ServerSecond[], probe: ProbeWindow | null, budgetMs: number): Verdict {
  const late: LateSecond[] = seconds
    .filter((s) => s.max_ms > budgetMs)
    .map((s) => {
      const probeMs = probeDuring(s, probe);
      const why = machineCause(s, probeMs, budgetMs);
      return { ...s, probe_ms: probeMs, cause: why ? "machine" : "app", ...(why ? { why } : {}) };
    });
  const kind = late.length === 0 ? "ok" : late.some((s) => s.cause === "app") ? "app" : "machine";
  const lines = late.map(
    (s) =>
      `${s.at}: server ${s.max_ms} ms late (cpu ${fmt(s.cpu_ms)} ms, gc ${fmt(s.gc_ms)} ms, longest gc ${fmt(s.gc_max_ms)} ms, longest gap ${fmt(s.longest_gap_ms)} ms with ${fmt(s.longest_gap_cpu_ms)} ms of the main thread's cpu), ` +
      `idle probe ${s.probe_ms === null ? "no record" : `${s.probe_ms} ms late`} → ${s.cause === "app" ? "the app held its own loop" : s.why === "held" ? "the machine held both" : "the server waited: its own work in that gap fitted the budget"}`,
  );
  return { kind, late, message: lines.join("\n") };
}

/**
 * Whose fault a late second was. The server records the largest event-loop delay of each second
 * (with its CPU time and GC pauses); an idle probe process beside it records each time its own
 * 10 ms timer came late. A second over the budget is the app's when the probe was on time then:
 * nothing held the machine, so the server held itself. It is the machine's when the probe was held
 * too, for at least half as long as the server and at least by the server's excess over the
 * budget: the host stalled both. With no probe record for that time, it is the app's.
 */

/** One second of the server's record (GET /api/health → event_loop.max_ms_per_second). */
export interface ServerSecond {
  at: string;
  max_ms: number;
  cpu_ms?: number;
  gc_ms?: number;
  gc_max_ms?: number;
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

export interface LateSecond extends ServerSecond {
  /** The probe's longest stall overlapping the time that second's delay can have come from, or null with no probe record. */
  probe_ms: number | null;
  cause: "app" | "machine";
}

export interface Verdict {
  /** ok: no second over the budget; app: one or more were the app's; machine: all were the machine's. */
  kind: "ok" | "app" | "machine";
  late: LateSecond[];
  /** The seconds over the budget, the server's figures beside the probe's, one line each. */
  message: string;
}

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

function machineHeld(second: ServerSecond, probeMs: number | null, budgetMs: number): boolean {
  if (probeMs === null) return false;
  return probeMs >= second.max_ms / 2 && probeMs >= second.max_ms - budgetMs;
}

const fmt = (n: number | undefined | null) => (n === undefined || n === null ? "?" : String(n));

/** Judges the seconds of one attack against the budget. */
export function loopVerdict(seconds: ServerSecond[], probe: ProbeWindow | null, budgetMs: number): Verdict {
  const late: LateSecond[] = seconds
    .filter((s) => s.max_ms > budgetMs)
    .map((s) => {
      const probeMs = probeDuring(s, probe);
      return { ...s, probe_ms: probeMs, cause: machineHeld(s, probeMs, budgetMs) ? "machine" : "app" };
    });
  const kind = late.length === 0 ? "ok" : late.some((s) => s.cause === "app") ? "app" : "machine";
  const lines = late.map(
    (s) =>
      `${s.at}: server ${s.max_ms} ms late (cpu ${fmt(s.cpu_ms)} ms, gc ${fmt(s.gc_ms)} ms, longest gc ${fmt(s.gc_max_ms)} ms), ` +
      `idle probe ${s.probe_ms === null ? "no record" : `${s.probe_ms} ms late`} → ${s.cause === "app" ? "the app held its own loop" : "the machine held both"}`,
  );
  return { kind, late, message: lines.join("\n") };
}

/**
 * Watching the server's event loop from a test: `GET /api/health` reports the largest
 * event-loop delay of each of the last 60 seconds (lib/server/event-loop.ts), with the CPU time
 * and GC pauses of each. {@link measured} runs an attack while pinging `/api/health` every 100 ms,
 * then returns the seconds that began after the attack started (the last one included), how the
 * pings went and, when an idle probe process runs beside the server (loop-probe.ts), the probe's
 * record of the same time, so that {@link judged} can tell the app's own blocking from the machine's.
 */
import { appendFileSync } from "node:fs";
import { expect } from "vitest";
import type { LoopProbe } from "./loop-probe";
import { loopVerdict, type ProbeWindow, type ServerSecond, type Verdict } from "./loop-verdict";
import type { TestServer } from "./server";

/** One second of the server's event-loop record. */
type LoopSecond = ServerSecond;

/** What {@link measured} saw. */
export interface LoopMeasure {
  /** Seconds recorded from the start of the attack to after its end, oldest first. */
  seconds: LoopSecond[];
  /** The largest of them (0 when none). */
  worst: number;
  /** Health pings sent during the attack, and those that failed (status or network error). */
  pings: number;
  failedPings: string[];
  /** True when the server's 60-second window still held the second the attack began in. */
  complete: boolean;
  /** The idle probe's record, taken after the last second ended (null without a probe). */
  probe: ProbeWindow | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's event-loop record now. */
async function loopRecord(server: TestServer): Promise<LoopSecond[]> {
  const res = await server.api("GET", "/api/health");
  if (res.status !== 200) throw new Error(`health answered ${res.status}`);
  return res.json.event_loop.max_ms_per_second as LoopSecond[];
}

/** Runs `attack` while pinging `/api/health`; returns the event-loop seconds it spanned. */
export async function measured(server: TestServer, attack: () => Promise<void>, probe?: LoopProbe): Promise<LoopMeasure> {
  const since = Date.now();
  let pings = 0;
  const failedPings: string[] = [];
  let running = true;
  const pinger = (async () => {
    while (running) {
      pings++;
      try {
        const res = await server.request({ path: "/api/health" });
        if (res.status !== 200) failedPings.push(`status ${res.status}`);
      } catch (error) {
        failedPings.push(String(error));
      }
      await sleep(100);
    }
  })();
  try {
    await attack();
  } finally {
    running = false;
    await pinger;
  }
  // The per-second maximum is recorded at the end of each second: wait for the last one.
  await sleep(1200);
  const record = await loopRecord(server);
  const seconds = record.filter((s) => Date.parse(s.at) > since);
  const probed = probe ? await probe.record() : null;
  return {
    seconds,
    worst: seconds.reduce((m, s) => Math.max(m, s.max_ms), 0),
    pings,
    failedPings,
    complete: record.length > 0 && Date.parse(record[0]!.at) <= since + 1000,
    probe: probed,
  };
}

/**
 * The verdict on one attack's seconds. A second over the budget that the machine held (the idle
 * probe was held as long) is reported on stderr, not failed; one the app held is returned as
 * `app` for the test to fail. With `ASTRION_LOOP_REPORT=<file>`, one JSON line per attack is
 * appended there (the worst second, its CPU and GC, the probe's worst stall, the verdict), for the
 * figures in docs/benchmarks.md.
 */
export function judged(m: LoopMeasure, budgetMs: number): Verdict {
  const verdict = loopVerdict(m.seconds, m.probe, budgetMs);
  const test = expect.getState().currentTestName ?? "?";
  if (verdict.kind === "machine") console.warn(`[event loop] ${test}: over ${budgetMs} ms, held by the machine, not failed:\n${verdict.message}`);
  const file = process.env.ASTRION_LOOP_REPORT;
  if (file) {
    const worst = m.seconds.reduce<LoopSecond | null>((w, s) => (!w || s.max_ms > w.max_ms ? s : w), null);
    const probeWorst = m.probe ? m.probe.stalls.filter((s) => m.seconds.length > 0 && s.at >= Date.parse(m.seconds[0]!.at) - 1000).reduce((w, s) => Math.max(w, s.late_ms), 0) : null;
    appendFileSync(file, `${JSON.stringify({ test, worst, probe_worst_ms: probeWorst, verdict: verdict.kind, late: verdict.late })}\n`);
  }
  return verdict;
}

/**
 * Watching the server's event loop from a test: `GET /api/health` reports the largest
 * event-loop delay of each of the last 60 seconds (lib/server/event-loop.ts). {@link measured}
 * runs an attack while pinging `/api/health` every 100 ms, then returns the seconds that began
 * after the attack started (the last one included) and how the pings went.
 */
import type { TestServer } from "./server";

/** One second of the server's event-loop record. */
export interface LoopSecond {
  at: string;
  max_ms: number;
}

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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's event-loop record now. */
export async function loopRecord(server: TestServer): Promise<LoopSecond[]> {
  const res = await server.api("GET", "/api/health");
  if (res.status !== 200) throw new Error(`health answered ${res.status}`);
  return res.json.event_loop.max_ms_per_second as LoopSecond[];
}

/** Runs `attack` while pinging `/api/health`; returns the event-loop seconds it spanned. */
export async function measured(server: TestServer, attack: () => Promise<void>): Promise<LoopMeasure> {
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
  return {
    seconds,
    worst: seconds.reduce((m, s) => Math.max(m, s.max_ms), 0),
    pings,
    failedPings,
    complete: record.length > 0 && Date.parse(record[0]!.at) <= since + 1000,
  };
}

/**
 * An idle Node process that measures its own event loop, started beside the server under test
 * (test/helpers/loop-probe.ts). It does nothing but run a 10 ms timer and note every tick that
 * came 20 ms or more late, with the wall-clock time it came: a process with no work of its own
 * is late only when the machine held it (no free core, a stalled host, memory pressure). The
 * parent asks for the stalls over IPC.
 */
const RESOLUTION_MS = 10;
const NOTED_FROM_MS = 20;
const KEPT = 10_000;

const startedAt = Date.now();
const stalls = [];
let expected = performance.now() + RESOLUTION_MS;

function tick() {
  const now = performance.now();
  const late = now - expected;
  if (late >= NOTED_FROM_MS) {
    stalls.push({ at: Date.now(), late_ms: Math.round(late * 10) / 10 });
    if (stalls.length > KEPT) stalls.shift();
  }
  expected = now + RESOLUTION_MS;
  setTimeout(tick, RESOLUTION_MS);
}
setTimeout(tick, RESOLUTION_MS);

process.on("message", (message) => {
  if (message === "stalls") process.send?.({ started_at: startedAt, now: Date.now(), stalls });
});
// The test process went away: so does the probe.
process.on("disconnect", () => process.exit(0));

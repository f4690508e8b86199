/**
 * The event-loop test's verdict against the real built server: a server held on its own (its
 * process group stopped with SIGSTOP for 300 ms while the idle probe runs: its main thread did no
 * work in that gap) is judged the machine's, the thread having waited; the server and the probe
 * held together (a host stall) are judged the machine's too, the probe having been held. Both are
 * reported, not failed. (The app's own blocking — a gap the main thread computed through — is
 * attacked by lib/server/event-loop.test.ts and test/helpers/loop-verdict.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judged, measured } from "./helpers/event-loop";
import { startLoopProbe, type LoopProbe } from "./helpers/loop-probe";
import { startServer, tempDir, type TestServer } from "./helpers/server";

const BUDGET_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: TestServer;
let probe: LoopProbe;

/** Holds the given processes (negative: a process group) for `ms`, as a stalled host would. */
async function hold(pids: number[], ms: number): Promise<void> {
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  await sleep(ms);
  for (const pid of pids) process.kill(pid, "SIGCONT");
}

beforeAll(async () => {
  probe = await startLoopProbe();
  server = await startServer({ home: tempDir("astrion-home-") });
  // The probe's record must cover the second before each hold.
  await sleep(1500);
});

afterAll(async () => {
  await server?.stop();
  await probe?.stop();
});

describe("whose fault a late second is, on the real server", () => {
  it("the server held alone while the idle probe runs waited: its main thread did no work in the gap", async () => {
    const m = await measured(server, () => hold([-server.proc.pid!], 300), probe);
    const verdict = judged(m, BUDGET_MS);
    const late = verdict.late.find((s) => s.max_ms >= 250)!;
    expect(late, JSON.stringify(m.seconds)).toBeDefined();
    expect(late.probe_ms).toBeLessThan(150);
    expect(late.longest_gap_ms).toBeGreaterThanOrEqual(late.max_ms - 10);
    expect(late.longest_gap_cpu_ms).toBeLessThan(50);
    expect(late).toMatchObject({ cause: "machine", why: "waited" });
    expect(verdict.message).toMatch(/server \d+(\.\d)? ms late \(cpu [\d.]+ ms, gc [\d.]+ ms, longest gc [\d.]+ ms, longest gap [\d.]+ ms with [\d.]+ ms of the main thread's cpu\), idle probe [\d.]+ ms late → the server waited/);
  });

  it("the server and the probe held together is the machine's: reported, not failed", async () => {
    await sleep(1500);
    const m = await measured(server, () => hold([-server.proc.pid!, probe.pid], 300), probe);
    const verdict = judged(m, BUDGET_MS);
    expect(verdict.kind, verdict.message).toBe("machine");
    expect(verdict.late.length).toBeGreaterThan(0);
    // the stall is seen by the probe (a second it straddles into may show only the waiting)
    const held = verdict.late.filter((s) => s.why === "held");
    expect(held.length, verdict.message).toBeGreaterThan(0);
    for (const s of held) expect(s.probe_ms).toBeGreaterThanOrEqual(s.max_ms / 2);
  });
});

/**
 * The idle probe beside the server (loop-probe-process.mjs): a second Node process with no work
 * of its own, whose event-loop stalls say when the machine, not the app, held processes back.
 */
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ProbeStall } from "./loop-verdict";

interface ProbeRecord {
  /** When the probe started, and its clock when it answered (epoch ms). */
  startedAt: number;
  now: number;
  stalls: ProbeStall[];
}

export interface LoopProbe {
  pid: number;
  record(): Promise<ProbeRecord>;
  stop(): Promise<void>;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Starts the probe and waits until it answers. */
export async function startLoopProbe(): Promise<LoopProbe> {
  const child: ChildProcess = fork(path.join(here, "loop-probe-process.mjs"), [], { stdio: ["ignore", "ignore", "inherit", "ipc"], execArgv: [] });
  const record = () =>
    new Promise<ProbeRecord>((resolve, reject) => {
      if (!child.connected) return reject(new Error(`the event-loop probe is not running (exit ${child.exitCode ?? child.signalCode})`));
      const onMessage = (m: { started_at: number; now: number; stalls: ProbeStall[] }) => {
        child.off("exit", onExit);
        resolve({ startedAt: m.started_at, now: m.now, stalls: m.stalls });
      };
      const onExit = () => {
        child.off("message", onMessage);
        reject(new Error("the event-loop probe exited"));
      };
      child.once("message", onMessage);
      child.once("exit", onExit);
      child.send("stalls");
    });
  await record();
  return {
    pid: child.pid!,
    record,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill();
      await exited;
    },
  };
}

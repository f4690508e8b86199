import "server-only";
/**
 * Boot: takes the data folder's lock, clears temp files left by a crash, seeds roles and the
 * model registry. When another live server owns the folder, this server says so and exits
 * instead of serving two writers on one folder. Run once per process: scripts/serve.mjs runs it
 * before it listens (so a second server on the folder says only that it cannot start, never
 * "ready on" first), and instrumentation.ts (through the server's core, lib/server/get-app.ts;
 * the only caller under `next dev`) gets the same run.
 */
import { closeApp, getApp, type AstrionApp } from "./app";
import { installBodyGuard } from "./body-guard";
import { startEventLoopMonitor } from "./event-loop";
import { processSingleton } from "./singleton";
import { startTakeover, type TakeoverScan } from "./takeover";

/**
 * Boots the server once per process: guards, the shutdown checkpoint, the app (its data folder's
 * lock taken), then, in the background, the resume of every active conversation. Resolves once
 * the app is started; a later call gets the first call's run.
 */
export function boot(): Promise<void> {
  return processSingleton("boot", bootOnce);
}

async function bootOnce(): Promise<void> {
  // First, so the resume below is measured and the first request is already guarded.
  startEventLoopMonitor();
  installBodyGuard();

  // A clean stop (SIGTERM, Ctrl-C) checkpoints every open conversation: its seed files complete and
  // durable, its step log empty. A kill skips this; the next start replays the log instead.
  let stopping = false;
  // PostgreSQL + Redis: the scan that takes over a dead instance's runs (./takeover.ts).
  let takeover: TakeoverScan | null = null;
  // `on`, not `once`: the signal often comes twice (to the process group, and forwarded by
  // scripts/start.mjs), and a second one with no listener would kill the process mid-checkpoint.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      const deadline = setTimeout(() => {
        console.error("[astrion] shutdown: the checkpoint did not finish within 3 s; the next start replays the step log");
        process.exit(0);
      }, 3000);
      // The scan first: nothing is taken over while this instance lets its conversations go.
      void (takeover?.stop() ?? Promise.resolve())
        .then(getApp)
        .then(closeApp)
        .catch((error: unknown) => console.error("[astrion] shutdown:", (error as Error).message))
        .finally(() => {
          clearTimeout(deadline);
          process.exit(0);
        });
    });
  }

  let app: AstrionApp;
  try {
    app = await getApp();
  } catch (error) {
    cannotStart(error);
  }
  // Local model servers are looked for in the background: start never waits for them.
  void app.discovery.scan();
  // Neither does listening wait for every active conversation to resume (requests for one wait
  // for it on their own).
  void app.engine.resumeAll().then((resumed) => {
    if (resumed > 0) console.log(`[astrion] resumed ${resumed} conversation(s) from disk`);
  }, cannotStart);
  // Only the scaled backend has other instances whose runs may need taking over. Started with the
  // resume, not after it: another instance that dies while this one resumes every active
  // conversation has its runs taken within the lease's bound. The two may reach one run at once:
  // its lease settles which instance, and a run object resumes once (TeamRun.resume).
  if (app.backend.takeoverScanMs !== undefined && !stopping) {
    takeover = startTakeover({ lifecycle: app.backend.lifecycle, resume: (id) => app.engine.resumeRun(id), everyMs: app.backend.takeoverScanMs });
  }
}

function cannotStart(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`[astrion] cannot start: ${message}`);
  process.exit(1);
}

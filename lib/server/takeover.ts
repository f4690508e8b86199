import "server-only";
/**
 * The takeover scan (issue 31, "Leases"; docs/postgresql.md): on PostgreSQL + Redis every
 * instance looks, every fraction of the lease term, for active conversations whose lease expired
 * without being released (the instance running them died, or was paused or cut off past its
 * lease), and resumes each one through the engine exactly as a restart does (`Engine.resumeRun`:
 * the lease taken with the next epoch, the run continued from what was committed). Instances race
 * for the same conversation; the lease settles it: the losers get LeaseHeldError and say nothing.
 * An instance dead at time t held its leases until at most t + term; the next scan after that
 * finds them, so the run is replaced within term + scan interval (+ one scan's resumes), under
 * twice the term with the default interval of half of it.
 *
 * Started by boot (./boot.ts) only for the scaled backend (the data folder has one server, and
 * resumes at its start); stopped at shutdown before the engine lets its conversations go.
 */
import type { ConversationLifecycle } from "@/lib/runtime/team/ports";
import { mapLimit } from "@/lib/store/map-limit";

/** Conversations resumed per scan at most; the rest are found by the next one. */
const SCAN_LIMIT = 50;
/**
 * Resumes under way at once within a scan. A dead instance leaves every run it held (tens, when
 * viewers kept them open), and each resume waits on the database more than it computes: one at a
 * time, the last of forty would wait for the thirty-nine before it, past twice the lease term.
 */
const RESUMES_AT_ONCE = 8;

/** What the scan needs. */
export interface TakeoverOptions {
  /** The storage's lifecycle, with its `orphaned` query. */
  lifecycle: Pick<ConversationLifecycle, "orphaned">;
  /** Resumes a conversation as a restart does (the engine's `resumeRun`). */
  resume(convId: string): Promise<void>;
  /** Milliseconds between scans. */
  everyMs: number;
  /** Where takeovers and failures are told (default console). */
  log?: { info(message: string): void; error(message: string): void };
}

/** A running scan. */
export interface TakeoverScan {
  /** Runs one scan now (the timer's scans skip while one runs); resolves with how many conversations were taken over. */
  scan(): Promise<number>;
  /** Stops scanning and waits for a scan under way. */
  stop(): Promise<void>;
}

/** Starts the scan: the first one at once (a run orphaned before this instance started), then every `everyMs`. */
export function startTakeover(options: TakeoverOptions): TakeoverScan {
  const log = options.log ?? { info: (m: string) => console.log(m), error: (m: string) => console.error(m) };
  const orphaned = options.lifecycle.orphaned?.bind(options.lifecycle);
  let running: Promise<number> | null = null;
  let stopped = false;
  /** Conversations whose takeover failed, with the message told, so a retry each scan is told once. */
  const failing = new Map<string, string>();

  async function once(): Promise<number> {
    if (!orphaned) return 0;
    // Longest expired first: started in that order, several at once.
    const taken = await mapLimit(await orphaned(SCAN_LIMIT), RESUMES_AT_ONCE, (lease) => (stopped ? Promise.resolve(false) : takeOver(lease)));
    return taken.filter(Boolean).length;
  }

  /** Resumes one orphaned conversation here; whether it was taken (false: another instance was first, or it failed). */
  async function takeOver(lease: { id: string; owner: string; expiredAt: Date }): Promise<boolean> {
    try {
      await options.resume(lease.id);
      failing.delete(lease.id);
      log.info(`[astrion] took over ${lease.id} from instance ${lease.owner} (its lease expired at ${lease.expiredAt.toISOString()} without being released)`);
      return true;
    } catch (error) {
      // Another instance took it first: it runs there now.
      // (By name: lib/pg is loaded only by a dynamic import, so its class is not imported here.)
      if ((error as Error).name === "LeaseHeldError") return false;
      const message = (error as Error).message;
      if (failing.get(lease.id) !== message) log.error(`[astrion] could not take over ${lease.id} from instance ${lease.owner}: ${message}`);
      failing.set(lease.id, message);
      return false;
    }
  }

  function scan(): Promise<number> {
    if (running) return running;
    running = once()
      .catch((error: unknown) => {
        // The database out of reach: the next scan tries again.
        log.error(`[astrion] takeover scan failed: ${(error as Error).message}`);
        return 0;
      })
      .finally(() => (running = null));
    return running;
  }

  const timer = setInterval(() => void scan(), Math.max(50, options.everyMs));
  timer.unref();
  void scan();
  return {
    scan,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

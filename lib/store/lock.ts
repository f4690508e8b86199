/**
 * One server process per data folder. Two servers writing the same files would each keep their
 * own in-process write queues and could lose each other's updates, so the first one to start
 * claims `<root>/.astrion.lock` and the second refuses to start with a message saying who owns
 * the folder. A lock left behind by a process that died (SIGKILL, power loss) is taken over.
 */
import "server-only";
import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DataRootLockedError } from "@/lib/contracts/errors";
import { lockFile } from "./paths";
import { localTimestamp } from "./time";

/** `<root>/.astrion.lock`: the owning server process. */
export const LockFileSchema = z.looseObject({
  pid: z.number().int().positive(),
  hostname: z.string(),
  started_at: z.string(),
  cwd: z.string(),
});
type LockFile = z.infer<typeof LockFileSchema>;

/** A held data-folder lock. */
export interface DataRootLock {
  /** Absolute path of the lock file. */
  readonly file: string;
  /** What the lock file says (our pid, host, start time, working folder). */
  readonly owner: LockFile;
  /** Removes the lock file if it is still ours. Safe to call more than once. */
  release(): Promise<void>;
}

/** True when a process with this pid exists on this machine (EPERM: it exists but is not ours to signal). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // A killed process stays signalable as a zombie until its parent reaps it; it owns nothing.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return true; // no /proc (not Linux): trust the signal check
  }
}

type Observed = { kind: "missing" } | { kind: "owner"; owner: LockFile; text: string } | { kind: "garbage"; text: string };

async function observe(file: string): Promise<Observed> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw error;
  }
  try {
    const parsed = LockFileSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { kind: "owner", owner: parsed.data, text };
  } catch {
    // Falls through: not JSON.
  }
  return { kind: "garbage", text };
}

function sameOwner(a: LockFile, b: LockFile): boolean {
  return a.pid === b.pid && a.hostname === b.hostname && a.started_at === b.started_at;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a just-created lock file may stay unreadable (its creator is still writing it). */
const GARBAGE_GRACE_MS = 1000;
/** Pause before re-reading a lock we took over, so a concurrent taker's rename lands first. */
const TAKEOVER_SETTLE_MS = 100;

function lockedError(root: string, file: string, owner: LockFile, sameHost: boolean): DataRootLockedError {
  const where = sameHost ? "" : ` on host ${owner.hostname}`;
  return new DataRootLockedError(
    `Data folder ${root} is already in use by another Astrion Team server (pid ${owner.pid}${where}, ` +
      `started ${owner.started_at}). Stop that server or set ASTRION_HOME to another folder. ` +
      `If no such server is running, delete ${file}.`,
    { root, file, pid: owner.pid, hostname: owner.hostname, started_at: owner.started_at, cwd: owner.cwd },
  );
}

/**
 * Claims the data folder `root` for this process by creating `<root>/.astrion.lock` exclusively.
 * A lock held by this same process is reused; a lock whose process is gone is taken over.
 * @throws DataRootLockedError naming the folder and the owner's pid when a live process holds it.
 */
export async function acquireDataRootLock(root: string): Promise<DataRootLock> {
  const absRoot = path.resolve(root);
  await fs.mkdir(absRoot, { recursive: true });
  const file = lockFile(absRoot);
  const hostname = os.hostname();
  const me: LockFile = { pid: process.pid, hostname, started_at: localTimestamp(), cwd: process.cwd() };
  const text = `${JSON.stringify(me, null, 2)}\n`;
  let firstGarbageAt: number | undefined;

  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await fs.writeFile(file, text, { flag: "wx", encoding: "utf8" });
      return held(file, me);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }

    const seen = await observe(file);
    if (seen.kind === "missing") continue; // released meanwhile: try to create it again

    if (seen.kind === "owner") {
      const { owner } = seen;
      const sameHost = owner.hostname === hostname;
      if (sameHost && owner.pid === process.pid) return held(file, owner); // this process already owns it
      if (!sameHost || isProcessAlive(owner.pid)) throw lockedError(absRoot, file, owner, sameHost);
    } else {
      // Unreadable: either its creator is between "create" and "write", or it is debris. Give a
      // live creator a moment before treating it as stale.
      firstGarbageAt ??= Date.now();
      if (Date.now() - firstGarbageAt < GARBAGE_GRACE_MS) {
        await sleep(25);
        continue;
      }
    }

    // Stale: take it over with temp + rename (never a moment without a lock file), but only if it
    // still holds what we judged stale.
    const again = await observe(file);
    if (again.kind !== seen.kind || ("text" in again && "text" in seen && again.text !== seen.text)) continue;
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    await fs.writeFile(tmp, text, { flag: "wx", encoding: "utf8" });
    await fs.rename(tmp, file);
    await sleep(TAKEOVER_SETTLE_MS);
    const confirm = await observe(file);
    if (confirm.kind === "owner" && sameOwner(confirm.owner, me)) return held(file, me);
    // Someone else took it over at the same time; the next round reports them.
  }
  throw new DataRootLockedError(`Could not claim data folder ${absRoot}: its lock file ${file} keeps changing.`, {
    root: absRoot,
    file,
  });
}

function stillOurs(text: string, me: LockFile): boolean {
  try {
    const parsed = LockFileSchema.safeParse(JSON.parse(text));
    return parsed.success && sameOwner(parsed.data, me);
  } catch {
    return false;
  }
}

function held(file: string, me: LockFile): DataRootLock {
  let released = false;
  // Best effort on a normal exit (and process.exit()); a crash leaves a stale lock, taken over later.
  const onExit = () => {
    try {
      if (stillOurs(readFileSync(file, "utf8"), me)) unlinkSync(file);
    } catch {
      // Nothing more can be done while exiting.
    }
  };
  process.once("exit", onExit);
  return {
    file,
    owner: me,
    async release() {
      if (released) return;
      released = true;
      process.removeListener("exit", onExit);
      let text: string;
      try {
        text = await fs.readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
      if (stillOurs(text, me)) await fs.rm(file, { force: true });
    },
  };
}

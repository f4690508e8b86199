import { spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DataRootLockedError } from "@/lib/contracts/errors";
import { acquireDataRootLock, isProcessAlive, LockFileSchema } from "./lock";

let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-lock-"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/**
 * A separate live process that claims `root` the way a server does (exclusive create of the lock
 * file with its own pid) and then stays alive.
 */
async function startHolder(root: string): Promise<ChildProcess> {
  const script = `
    const fs = require("node:fs");
    const os = require("node:os");
    const file = process.argv[1];
    fs.writeFileSync(file, JSON.stringify({ pid: process.pid, hostname: os.hostname(),
      started_at: "2026-07-11T21:00:00", cwd: process.cwd() }), { flag: "wx" });
    process.stdout.write("locked\\n");
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", script, path.join(root, ".astrion.lock")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`holder exited (${code})`)));
  });
  return child;
}

async function rootFor(name: string): Promise<string> {
  const root = path.join(dir, name);
  await fs.mkdir(root, { recursive: true });
  return root;
}

describe("acquireDataRootLock", () => {
  it("writes a lock with pid, hostname, started_at and cwd, and release removes it", async () => {
    const root = await rootFor("simple");
    const lock = await acquireDataRootLock(root);
    expect(lock.file).toBe(path.join(root, ".astrion.lock"));
    const content = LockFileSchema.parse(JSON.parse(await fs.readFile(lock.file, "utf8")));
    expect(content).toEqual({
      pid: process.pid,
      hostname: os.hostname(),
      started_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      cwd: process.cwd(),
    });
    await lock.release();
    await expect(fs.access(lock.file)).rejects.toThrow();
    await lock.release(); // twice is harmless
  });

  it("refuses a folder held by another live process, naming the folder and the pid", async () => {
    const root = await rootFor("held");
    const holder = await startHolder(root);
    const attempt = acquireDataRootLock(root);
    await expect(attempt).rejects.toBeInstanceOf(DataRootLockedError);
    const error = (await attempt.catch((e: unknown) => e)) as DataRootLockedError;
    expect(error.message).toContain(`Data folder ${root} is already in use by another Astrion Team server`);
    expect(error.message).toContain(`pid ${holder.pid}`);
    expect(error.message).toContain("started 2026-07-11T21:00:00");
    expect(error.message).toContain("ASTRION_HOME");
    expect(error.details).toMatchObject({ pid: holder.pid, root });
    // The holder's lock is untouched.
    expect(JSON.parse(await fs.readFile(path.join(root, ".astrion.lock"), "utf8")).pid).toBe(holder.pid);
  });

  it("takes over a stale lock left by a process killed with SIGKILL", async () => {
    const root = await rootFor("stale");
    const holder = await startHolder(root);
    const pid = holder.pid as number;
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.once("exit", resolve));
    expect(isProcessAlive(pid)).toBe(false);

    const lock = await acquireDataRootLock(root);
    const content = JSON.parse(await fs.readFile(lock.file, "utf8"));
    expect(content.pid).toBe(process.pid);
    expect((await fs.readdir(root)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    await lock.release();
    await expect(fs.access(lock.file)).rejects.toThrow();
  });

  it("takes over an unreadable lock file once its grace period has passed", async () => {
    const root = await rootFor("garbage");
    await fs.writeFile(path.join(root, ".astrion.lock"), "{ half-writ");
    const lock = await acquireDataRootLock(root);
    expect(JSON.parse(await fs.readFile(lock.file, "utf8")).pid).toBe(process.pid);
    await lock.release();
  });

  it("does not remove a lock that another process took over meanwhile", async () => {
    const root = await rootFor("stolen");
    const lock = await acquireDataRootLock(root);
    const other = JSON.stringify({ pid: 999_999, hostname: "elsewhere", started_at: "x", cwd: "/" });
    await fs.writeFile(lock.file, other);
    await lock.release();
    expect(await fs.readFile(lock.file, "utf8")).toBe(other);
  });

  it("lets the owning process acquire its own folder again", async () => {
    const root = await rootFor("again");
    const first = await acquireDataRootLock(root);
    const second = await acquireDataRootLock(root);
    expect(second.file).toBe(first.file);
    await first.release();
    await second.release();
  });
});

import { spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FileQueues, removeOrphanTempFiles, TEMP_FILE_PATTERN, writeFileAtomic, writeFileAtomicUnlocked, writeNewFileDurable } from "./atomic";

let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-atomic-"));
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** The real lib/store/atomic.ts, transpiled to an ES module a plain `node` child can import. */
async function transpileAtomic(into: string): Promise<string> {
  const source = await fs.readFile(path.join(import.meta.dirname, "atomic.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: "atomic.ts",
  });
  const out = path.join(into, "atomic.mjs");
  await fs.writeFile(out, outputText);
  return out;
}

// The child loads the real module, then waits for "go" on stdin before touching the file, so
// the next child can start up while the current one is writing (only one ever writes at a time).
const CHILD = `
import { readFileSync } from "node:fs";
import { FileQueues, writeFileAtomic } from "./atomic.mjs";
const file = process.argv[2];
// A process of its own: its own write queues.
const queues = new FileQueues();
// A payload big enough that a non-atomic write would often be caught half-written.
const pad = "多".repeat(16 * 1024);
process.stdout.write("loaded\\n");
process.stdin.once("data", async () => {
  let counter = 0;
  try { counter = JSON.parse(readFileSync(file, "utf8")).counter; } catch {}
  // One complete write first, so every kill lands inside the write loop and every round makes progress.
  counter += 1;
  await writeFileAtomic(queues, file, JSON.stringify({ counter, pad }));
  process.stdout.write("ready\\n");
  for (;;) {
    counter += 1;
    await writeFileAtomic(queues, file, JSON.stringify({ counter, pad }));
  }
});
`;

/** Resolves when the child has written `word` on its stdout. */
function waitFor(child: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(word)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code, signal) => reject(new Error(`child exited early (${code ?? signal})`)));
    child.once("error", reject);
  });
}

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

describe("writeFileAtomic", () => {
  it("never leaves a torn file when the writer is SIGKILLed at random moments (200 kills)", async () => {
    const work = await fs.mkdtemp(path.join(dir, "crash-"));
    await transpileAtomic(work);
    const childFile = path.join(work, "child.mjs");
    await fs.writeFile(childFile, CHILD);
    const target = path.join(work, "counter.json");

    let last = 0;
    let kills = 0;
    const spawnChild = () => {
      const child = spawn(process.execPath, [childFile, target], { stdio: ["pipe", "pipe", "inherit"] });
      return { child, loaded: waitFor(child, "loaded") };
    };
    // Several children start up ahead, so a round costs a kill, not a Node start-up.
    const pool = Array.from({ length: 6 }, spawnChild);
    try {
      for (let round = 0; round < 200; round++) {
        const next = pool.shift();
        if (!next) throw new Error("empty pool");
        if (round + pool.length < 199) pool.push(spawnChild());
        const { child } = next;
        await next.loaded;
        const ready = waitFor(child, "ready");
        child.stdin?.write("go\n");
        await ready;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 56)));
        child.kill("SIGKILL");
        await waitForExit(child);
        expect(child.signalCode).toBe("SIGKILL");
        kills++;

        const parsed = JSON.parse(await fs.readFile(target, "utf8")) as { counter: number; pad: string };
        expect(parsed.pad).toHaveLength(16 * 1024);
        // Each child completed at least one write before it was killed.
        expect(parsed.counter).toBeGreaterThan(last);
        last = parsed.counter;
      }
    } finally {
      // On failure, do not leave waiting children behind.
      for (const { child, loaded } of pool) {
        loaded.catch(() => undefined);
        child.kill("SIGKILL");
      }
    }
    expect(kills).toBe(200);
    expect(last).toBeGreaterThanOrEqual(200);

    const before = (await fs.readdir(work)).filter((n) => TEMP_FILE_PATTERN.test(n));
    const removed = await removeOrphanTempFiles(work);
    expect(removed.map((f) => path.basename(f)).sort()).toEqual(before.sort());
    const after = await fs.readdir(work);
    expect(after.filter((n) => TEMP_FILE_PATTERN.test(n))).toEqual([]);
    expect(after.sort()).toEqual(["atomic.mjs", "child.mjs", "counter.json"]);
  }, 120_000);

  it("creates the file and replaces it whole", async () => {
    const file = path.join(dir, "plain.json");
    const queues = new FileQueues();
    await writeFileAtomic(queues, file, "first");
    expect(await fs.readFile(file, "utf8")).toBe("first");
    await writeFileAtomic(queues, file, "second, longer");
    expect(await fs.readFile(file, "utf8")).toBe("second, longer");
    expect((await fs.readdir(dir)).filter((n) => TEMP_FILE_PATTERN.test(n))).toEqual([]);
  });

  it("creates the temp file and renames it off the event loop, even for a small non-durable write (both can wait for the journal)", async () => {
    const file = path.join(dir, "small.json");
    await fs.writeFile(file, "old");
    const renames: string[] = [];
    const created: string[] = [];
    const realRename = fs.rename.bind(fs);
    const realWrite = fs.writeFile.bind(fs);
    const rename = vi.spyOn(fs, "rename").mockImplementation(async (from, to) => {
      renames.push(String(to));
      return realRename(from, to);
    });
    const write = vi.spyOn(fs, "writeFile").mockImplementation(async (target, data, options) => {
      created.push(String(target));
      return realWrite(target as string, data as string, options as never);
    });
    try {
      await writeFileAtomicUnlocked(file, "new", { durable: false });
    } finally {
      rename.mockRestore();
      write.mockRestore();
    }
    expect(created).toHaveLength(1);
    expect(TEMP_FILE_PATTERN.test(created[0]!)).toBe(true);
    expect(renames).toEqual([file]);
    expect(await fs.readFile(file, "utf8")).toBe("new");
  });

  it("removes no temp file when its folder is not there (none was made), and removes one a failed rename left, durable or not", async () => {
    const rm = vi.spyOn(fs, "rm");
    try {
      await expect(writeFileAtomicUnlocked(path.join(dir, "no-such-folder", "small.json"), "x", { durable: false })).rejects.toMatchObject({ code: "ENOENT" });
      await expect(writeFileAtomicUnlocked(path.join(dir, "no-such-folder", "durable.json"), "x")).rejects.toMatchObject({ code: "ENOENT" });
      expect(rm).not.toHaveBeenCalled();
      // the temp file was made and the rename failed (a folder in the way): it is removed
      const blocked = path.join(dir, "blocked");
      await fs.mkdir(path.join(blocked, "inner"), { recursive: true });
      await expect(writeFileAtomicUnlocked(blocked, "x", { durable: false })).rejects.toBeTruthy();
      expect(rm).toHaveBeenCalledTimes(1);
      await expect(writeFileAtomicUnlocked(blocked, "x")).rejects.toBeTruthy();
      expect(rm).toHaveBeenCalledTimes(2);
      expect((await fs.readdir(dir)).filter((n) => TEMP_FILE_PATTERN.test(n))).toEqual([]);
    } finally {
      rm.mockRestore();
    }
  });

  it("removeOrphanTempFiles finds temp files in sub-folders and leaves other files alone", async () => {
    const root = await fs.mkdtemp(path.join(dir, "orphans-"));
    await fs.mkdir(path.join(root, "a", "b"), { recursive: true });
    const orphan = path.join(root, "a", "b", "metadata.json.1234.0123456789ab.tmp");
    await fs.writeFile(orphan, "{");
    await fs.writeFile(path.join(root, "a", "notes.tmp"), "keep");
    await fs.writeFile(path.join(root, "a", "b", "metadata.json"), "{}");
    expect(await removeOrphanTempFiles(root)).toEqual([orphan]);
    expect((await fs.readdir(path.join(root, "a"))).sort()).toEqual(["b", "notes.tmp"]);
    expect(await fs.readdir(path.join(root, "a", "b"))).toEqual(["metadata.json"]);
  });
});

describe("FileQueues", () => {
  it("runs tasks on one key one after another, and keeps going after a failure", async () => {
    const queues = new FileQueues();
    const order: string[] = [];
    let inside = 0;
    const task = (name: string, fail = false) =>
      queues.withFileLock("key-a", async () => {
        inside++;
        expect(inside).toBe(1);
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`end ${name}`);
        inside--;
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([task("1"), task("2", true), task("3")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
    expect(queues.busyKeys).toBe(0);
  });

  it("queues a write behind a task of the same instance, whichever copy of the module writes (each Next route bundle has its own)", async () => {
    const queues = new FileQueues();
    const file = path.join(dir, "shared-queue.json");
    const copy = (await import(`./atomic?bundle=${Date.now()}`)) as typeof import("./atomic");
    let release!: () => void;
    const held = queues.withFileLock(file, () => new Promise<void>((resolve) => (release = resolve)));
    let written = false;
    const write = copy.writeFileAtomic(queues, file, "after the held task").then(() => (written = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(written).toBe(false);
    // another process's queues (a test's own) do not wait for it
    await copy.writeFileAtomic(new FileQueues(), file, "elsewhere");
    release();
    await Promise.all([held, write]);
    expect(await fs.readFile(file, "utf8")).toBe("after the held task");
  });
});

describe("writeNewFileDurable", () => {
  it("creates the file with its content and refuses one that is already there", async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-new-file-"));
    const file = path.join(folder, "metadata.json");
    await writeNewFileDurable(file, "多 {}\n");
    expect(await fs.readFile(file, "utf8")).toBe("多 {}\n");
    await expect(writeNewFileDurable(file, "other")).rejects.toMatchObject({ code: "EEXIST" });
    expect(await fs.readFile(file, "utf8")).toBe("多 {}\n");
    await fs.rm(folder, { recursive: true, force: true });
  });
});

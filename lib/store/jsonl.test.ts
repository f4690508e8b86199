import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonLineFiles } from "./jsonl";

let dir: string;
let jsonl: JsonLineFiles;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-jsonl-"));
  // A process's JSON Lines files, as the composition root makes them.
  jsonl = new JsonLineFiles();
});

afterEach(async () => {
  await jsonl.close(dir);
  await fs.rm(dir, { recursive: true, force: true });
});

describe("JsonLineFiles.append and the folder of a new file", () => {
  it("syncs the folder of a file a durable append creates before it resolves, and not again", async () => {
    const before = jsonl.stats.folderSyncs;
    await jsonl.append(path.join(dir, "a.jsonl"), '{"n":1}');
    expect(jsonl.stats.folderSyncs).toBe(before + 1);
    await jsonl.append(path.join(dir, "a.jsonl"), '{"n":2}');
    await jsonl.sync(path.join(dir, "a.jsonl"));
    expect(jsonl.stats.folderSyncs).toBe(before + 1);
  });

  it("leaves the folder of a file a non-durable append creates to the sync that makes its lines durable, once for the folder", async () => {
    const before = jsonl.stats.folderSyncs;
    await jsonl.append(path.join(dir, "a.jsonl"), '{"n":1}', { durable: false });
    await jsonl.append(path.join(dir, "b.jsonl"), '{"n":2}', { durable: false });
    expect(await fs.readFile(path.join(dir, "a.jsonl"), "utf8")).toBe('{"n":1}\n');
    expect(jsonl.stats.folderSyncs).toBe(before);
    await jsonl.sync(path.join(dir, "a.jsonl"));
    expect(jsonl.stats.folderSyncs).toBe(before + 1);
    await jsonl.sync(path.join(dir, "b.jsonl"));
    expect(jsonl.stats.folderSyncs).toBe(before + 1);
  });

  it("has every caller that makes lines durable wait for the folder's sync, whoever started it", async () => {
    const before = jsonl.stats.folderSyncs;
    await jsonl.append(path.join(dir, "a.jsonl"), '{"n":1}', { durable: false });
    await jsonl.append(path.join(dir, "b.jsonl"), '{"n":2}', { durable: false });
    const syncs = [jsonl.sync(path.join(dir, "a.jsonl")), jsonl.sync(path.join(dir, "b.jsonl"))];
    for (const sync of syncs) {
      await sync;
      expect(jsonl.stats.folderSyncs).toBe(before + 1);
    }
  });

  it("syncs that folder at the next durable append to a file in it, or when the files are closed", async () => {
    const before = jsonl.stats.folderSyncs;
    await jsonl.append(path.join(dir, "a.jsonl"), '{"n":1}', { durable: false });
    await jsonl.append(path.join(dir, "a.jsonl"), '{"n":2}');
    expect(jsonl.stats.folderSyncs).toBe(before + 1);
    await jsonl.append(path.join(dir, "b.jsonl"), '{"n":3}', { durable: false });
    expect(jsonl.stats.folderSyncs).toBe(before + 1);
    await jsonl.close(dir);
    expect(jsonl.stats.folderSyncs).toBe(before + 2);
  });
});

describe("one JsonLineFiles per process", () => {
  it("keeps one open file and one queue per path for every caller it is given to: their appends of one tick are one write and one fsync, in call order", async () => {
    const file = path.join(dir, "timeline.jsonl");
    // the store (an engine step) and a route bundle (a person's action) of the same process
    const store = { lines: jsonl };
    const route = { lines: jsonl };
    await Promise.all([store.lines.append(file, "1"), route.lines.append(file, "2"), store.lines.append(file, "3")]);
    expect(jsonl.stats).toMatchObject({ lines: 3, syncs: 1 });
    expect(jsonl.openFiles()).toBe(1);
    expect(await fs.readFile(file, "utf8")).toBe("1\n2\n3\n");
  });

  it("starts a new process with no file open and no count, whatever another process holds", async () => {
    await jsonl.append(path.join(dir, "a.jsonl"), "1");
    const fresh = new JsonLineFiles();
    expect(fresh.openFiles()).toBe(0);
    expect(fresh.stats).toEqual({ lines: 0, syncs: 0, folderSyncs: 0 });
    expect(jsonl.openFiles()).toBe(1);
  });
});

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendJsonLine, appendStats, closeJsonLines, syncJsonLines } from "./jsonl";

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-jsonl-"));
});

afterEach(async () => {
  await closeJsonLines(dir);
  await fs.rm(dir, { recursive: true, force: true });
});

describe("appendJsonLine and the folder of a new file", () => {
  it("syncs the folder of a file a durable append creates before it resolves, and not again", async () => {
    const before = appendStats.folderSyncs;
    await appendJsonLine(path.join(dir, "a.jsonl"), '{"n":1}');
    expect(appendStats.folderSyncs).toBe(before + 1);
    await appendJsonLine(path.join(dir, "a.jsonl"), '{"n":2}');
    await syncJsonLines(path.join(dir, "a.jsonl"));
    expect(appendStats.folderSyncs).toBe(before + 1);
  });

  it("leaves the folder of a file a non-durable append creates to the sync that makes its lines durable, once for the folder", async () => {
    const before = appendStats.folderSyncs;
    await appendJsonLine(path.join(dir, "a.jsonl"), '{"n":1}', { durable: false });
    await appendJsonLine(path.join(dir, "b.jsonl"), '{"n":2}', { durable: false });
    expect(await fs.readFile(path.join(dir, "a.jsonl"), "utf8")).toBe('{"n":1}\n');
    expect(appendStats.folderSyncs).toBe(before);
    await syncJsonLines(path.join(dir, "a.jsonl"));
    expect(appendStats.folderSyncs).toBe(before + 1);
    await syncJsonLines(path.join(dir, "b.jsonl"));
    expect(appendStats.folderSyncs).toBe(before + 1);
  });

  it("has every caller that makes lines durable wait for the folder's sync, whoever started it", async () => {
    const before = appendStats.folderSyncs;
    await appendJsonLine(path.join(dir, "a.jsonl"), '{"n":1}', { durable: false });
    await appendJsonLine(path.join(dir, "b.jsonl"), '{"n":2}', { durable: false });
    const syncs = [syncJsonLines(path.join(dir, "a.jsonl")), syncJsonLines(path.join(dir, "b.jsonl"))];
    for (const sync of syncs) {
      await sync;
      expect(appendStats.folderSyncs).toBe(before + 1);
    }
  });

  it("syncs that folder at the next durable append to a file in it, or when the files are closed", async () => {
    const before = appendStats.folderSyncs;
    await appendJsonLine(path.join(dir, "a.jsonl"), '{"n":1}', { durable: false });
    await appendJsonLine(path.join(dir, "a.jsonl"), '{"n":2}');
    expect(appendStats.folderSyncs).toBe(before + 1);
    await appendJsonLine(path.join(dir, "b.jsonl"), '{"n":3}', { durable: false });
    expect(appendStats.folderSyncs).toBe(before + 1);
    await closeJsonLines(dir);
    expect(appendStats.folderSyncs).toBe(before + 2);
  });
});

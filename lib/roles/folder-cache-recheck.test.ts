/**
 * The role folder cache's stat check (lib/roles/folder-cache.ts), with the watch turned off as on
 * a network file system where another machine's edits raise no event: an edit, a new file and a
 * removal made behind the cache's back are seen at the first read after `recheckMs`, never by
 * reading the folder on every call; a fresh ("racy") stamp is read again once, then trusted.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FolderCache } from "./folder-cache";

let dir: string;
let loads: number;

/** Each file's text, read fresh (what a load of the role library does). */
async function readFolder(): Promise<Map<string, string>> {
  loads++;
  const names = await fs.readdir(dir);
  return new Map(await Promise.all(names.map(async (n): Promise<[string, string]> => [n, await fs.readFile(path.join(dir, n), "utf8")])));
}

/** Makes `file`'s times a minute old, so a stamp of it is not racy. */
async function age(file: string): Promise<void> {
  const then = new Date(Date.now() - 60_000);
  await fs.utimes(path.join(dir, file), then, then);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-folder-recheck-"));
  loads = 0;
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("the folder cache's stat check", () => {
  it("sees edits nobody told it of at the first read after recheckMs, and does not read the folder in between", async () => {
    await fs.writeFile(path.join(dir, "a.md"), "one");
    const cache = new FolderCache(dir, readFolder, { recheckMs: 300, watch: false });
    try {
      expect((await cache.get()).get("a.md")).toBe("one");
      // The first stamp was fresh (racy): read once more after the interval, then trusted.
      await sleep(1100);
      await cache.get();
      expect(loads).toBe(2);
      await sleep(350);
      const held = await cache.get();
      expect(loads).toBe(2);

      // Another instance rewrites the file (atomically, as every writer of the data folder does), adds one and removes one.
      await fs.writeFile(path.join(dir, "a.tmp"), "two, longer");
      await fs.rename(path.join(dir, "a.tmp"), path.join(dir, "a.md"));
      for (let i = 0; i < 20; i++) expect(await cache.get()).toBe(held);
      expect(loads).toBe(2);
      await sleep(350);
      expect((await cache.get()).get("a.md")).toBe("two, longer");

      await fs.writeFile(path.join(dir, "b.md"), "bee");
      await age("b.md");
      await sleep(1100);
      await cache.get();
      await sleep(350);
      expect([...(await cache.get()).keys()].sort()).toEqual(["a.md", "b.md"]);

      // An edit in place (same inode) is seen too: the entries are stat'ed, not only the folder.
      const settled = loads;
      await fs.writeFile(path.join(dir, "b.md"), "bee, edited in place");
      await sleep(350);
      expect((await cache.get()).get("b.md")).toBe("bee, edited in place");
      expect(loads).toBe(settled + 1);

      await fs.rm(path.join(dir, "a.md"));
      await sleep(350);
      expect([...(await cache.get()).keys()]).toEqual(["b.md"]);
    } finally {
      cache.close();
    }
  });

  it("caches nothing while the folder does not exist", async () => {
    const missing = path.join(dir, "not-yet");
    const cache = new FolderCache(missing, async () => {
      loads++;
      return new Map<string, string>();
    });
    try {
      await cache.get();
      await cache.get();
      expect(loads).toBe(2);
    } finally {
      cache.close();
    }
  });
});

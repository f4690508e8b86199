import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Checkpointer } from "./checkpointer";
import { SearchDb, type ConvRow, type SourceRow } from "./db";
import type { IndexedMessage } from "./rows";

let dir: string;
beforeEach(async () => {
  idx = 0;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-checkpoint-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const conv: ConvRow = { conv_id: "conv_20261202_000000_000", title: "Checkpoints", status: "active", model_key: "offline", updated_at: "2026-12-02T00:00:00" };
const source: SourceRow = { conv_id: conv.conv_id, agent_id: 0, display_name: "Team Leader", role_id: null, model_key: "offline", count: 0, last_id: null, updated_at: conv.updated_at };

let idx = 0;
/** Writes `n` transactions of `per` messages of distinct words each (tens of pages of log per message). */
function write(db: SearchDb, n: number, per = 20): void {
  for (let t = 0; t < n; t++) {
    const rows: IndexedMessage[] = Array.from({ length: per }, () => {
      const i = idx++;
      const text = Array.from({ length: 60 }, (_, w) => `w${i}x${w}y${(i * 7919 + w * 104729) % 1000003}`).join(" ");
      return { idx: i, messageId: `msg_${i}`, role: "assistant", createdAt: conv.updated_at, text };
    });
    db.transaction(() => {
      db.putConversation(conv);
      db.putMessages(conv, { ...source, count: idx, last_id: `msg_${idx - 1}` }, idx - rows.length, rows, { first: true, last: true });
    });
  }
}

describe("the search database's checkpoints", () => {
  it("are not run by the connection that writes (a checkpoint fsyncs): the log grows past SQLite's 1,000 pages until the worker checkpoints it", async () => {
    const file = path.join(dir, "history.sqlite");
    // No timed checkpoint during the test: only the one it asks for.
    const db = SearchDb.open(file, true, { checkpointEveryMs: 3_600_000 });
    try {
      write(db, 150, 2);
      const result = await db.checkpoint();
      // With SQLite's default (a checkpoint in the committing connection once the log holds 1,000
      // pages) the log would have started over along the way: at most 1,000 pages and one
      // transaction's (a few dozen here).
      expect(result.logFrames).toBeGreaterThan(1_500);
      expect(result.checkpointedFrames).toBe(result.logFrames);
      // The next write starts the log over: it was checkpointed whole.
      write(db, 1, 2);
      expect((await db.checkpoint()).logFrames).toBeLessThan(result.logFrames);
    } finally {
      await db.close();
    }
    // The last connection to close (the worker's) left no log, and everything written is in the database.
    await expect(fs.stat(`${file}-wal`)).rejects.toMatchObject({ code: "ENOENT" });
    const check = new DatabaseSync(file, { readOnly: true });
    try {
      expect((check.prepare("SELECT count(*) AS n FROM msgs").get() as { n: number }).n).toBe(151 * 2);
    } finally {
      check.close();
    }
  });

  it("run on their own every interval: the database file takes the log's pages with nothing asked", async () => {
    const file = path.join(dir, "history.sqlite");
    const db = SearchDb.open(file, true, { checkpointEveryMs: 50 });
    try {
      const before = (await fs.stat(file)).size;
      write(db, 20);
      // The pages are in the log; the database file grows only when a checkpoint copies them.
      let size = (await fs.stat(file)).size;
      for (let i = 0; i < 200 && size <= before; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        size = (await fs.stat(file)).size;
      }
      expect(size).toBeGreaterThan(before);
    } finally {
      await db.close();
    }
  });

  it("tell their owner once when the worker stops unasked (here: its file is not there), and not when closed", async () => {
    let stops = 0;
    const broken = new Checkpointer(path.join(dir, "missing.sqlite"), 1_000, () => stops++);
    await expect(broken.checkpoint()).rejects.toThrow();
    for (let i = 0; i < 100 && stops === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stops).toBe(1);
    const file = path.join(dir, "history.sqlite");
    SearchDb.open(file, true).close();
    let closedStops = 0;
    const fine = new Checkpointer(file, 1_000, () => closedStops++);
    await fine.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closedStops).toBe(0);
  });

  it("close without waiting for a worker that has already stopped, and refuse after close", async () => {
    const db = SearchDb.open(path.join(dir, "history.sqlite"), true);
    await db.close();
    await db.close();
    await expect(db.checkpoint()).rejects.toThrow(/no checkpoint worker/);
  });
});

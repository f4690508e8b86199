import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, expect, it, vi } from "vitest";
import { SearchDb, type ConvRow } from "./db";

const worker = vi.hoisted(() => ({ fails: "at start" as "at start" | "later" }));
vi.mock("./checkpointer", () => ({
  Checkpointer: class {
    constructor(_file: string, _everyMs: number | undefined, onStop: () => void) {
      if (worker.fails === "at start") throw new Error("no worker threads here");
      // A worker that started and then stopped unasked (it could not open the file, say).
      setTimeout(() => onStop?.(), 0);
    }
    checkpoint(): Promise<never> {
      return Promise.reject(new Error("stopped"));
    }
    close(): Promise<void> {
      return Promise.resolve();
    }
  },
}));

let dir: string | undefined;
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

it.each(["at start", "later"] as const)("opens the database when the checkpoint worker fails %s, and checkpoints in its own connection as SQLite does by default", async (when) => {
  worker.fails = when;
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-checkpoint-fallback-"));
  const file = path.join(dir, "history.sqlite");
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  const db = SearchDb.open(file, true);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const conv: ConvRow = { conv_id: "conv_20261202_000000_000", title: "Fallback", status: "active", model_key: "offline", updated_at: "2026-12-02T00:00:00" };
  try {
    for (let i = 0; i < 150; i++) {
      const text = Array.from({ length: 60 }, (_, w) => `w${i}x${w}y${(i * 7919 + w * 104729) % 1000003}`).join(" ");
      db.transaction(() => {
        db.putConversation(conv);
        db.putMessages(conv, { conv_id: conv.conv_id, agent_id: 0, display_name: "Team Leader", role_id: null, model_key: "offline", count: i + 1, last_id: `msg_${i}`, updated_at: conv.updated_at }, i, [
          { idx: i, messageId: `msg_${i}`, role: "assistant", createdAt: conv.updated_at, text },
        ]);
      });
    }
    // The log started over along the way (a checkpoint every 1,000 pages), so it holds fewer.
    const other = new DatabaseSync(file);
    try {
      const row = other.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number };
      expect(row.log).toBeLessThan(1_500);
    } finally {
      other.close();
    }
    await expect(db.checkpoint()).rejects.toThrow(/no checkpoint worker/);
  } finally {
    await db.close();
  }
});

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { JsonLineFiles } from "./jsonl";
import { ActionJournal, JOURNAL_FILE_NAME } from "./action-journal";

describe("the action journal", () => {
  it("knows each key's state, durably, and a new instance reads it back from the file", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-journal-"));
    // fsynced appends of a process's JSON Lines files (the engine's storage uses the step log)
    const jsonl = new JsonLineFiles();
    const append = (line: string) => jsonl.append(path.join(dir, JOURNAL_FILE_NAME), line);
    const journal = new ActionJournal(dir, append);
    expect(await journal.state("a")).toEqual({ status: "none" });
    await journal.started("a");
    expect(await journal.state("a")).toEqual({ status: "started" });
    await journal.done("a", "result A");
    await journal.started("b");
    // A "started" after "done" (a replayed line) does not undo the result.
    await journal.started("a");
    expect(await journal.state("a")).toEqual({ status: "done", result: "result A" });

    const again = new ActionJournal(dir, append);
    expect(await again.state("a")).toEqual({ status: "done", result: "result A" });
    expect(await again.state("b")).toEqual({ status: "started" });
    expect((await fs.readFile(path.join(dir, JOURNAL_FILE_NAME), "utf8")).trim().split("\n")).toHaveLength(4);
  });

  it("writes `started` through the durable append and `done` through the ordered one", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-journal-"));
    const lines: Array<[string, string]> = [];
    let releaseDurable!: () => void;
    const durable = (line: string) => {
      lines.push(["durable", JSON.parse(line).status]);
      return new Promise<void>((r) => (releaseDurable = r));
    };
    const ordered = async (line: string) => void lines.push(["ordered", JSON.parse(line).status]);
    const journal = new ActionJournal(dir, durable, ordered);
    const started = journal.started("k");
    // The journal reads its file first (the thread pool: no fixed number of turns), then appends.
    while (lines.length === 0) await new Promise((r) => setImmediate(r));
    // `started` waits for the disk: the action may not run before it resolves.
    let ran = false;
    void started.then(() => (ran = true));
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(false);
    releaseDurable();
    await started;
    await journal.done("k", "R");
    // An action that is wholly changes of the conversation's state: `started` only ordered.
    await journal.started("m", { ordered: true });
    expect(lines).toEqual([
      ["durable", "started"],
      ["ordered", "done"],
      ["ordered", "started"],
    ]);
    expect(await journal.state("k")).toEqual({ status: "done", result: "R" });
    expect(await journal.state("m")).toEqual({ status: "started" });
  });
});

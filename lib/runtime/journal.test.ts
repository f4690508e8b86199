import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ActionJournal, JOURNAL_FILE_NAME } from "./journal";

describe("the action journal", () => {
  it("knows each key's state, durably, and a new instance reads it back from the file", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-journal-"));
    const journal = new ActionJournal(dir);
    expect(await journal.state("a")).toEqual({ status: "none" });
    await journal.started("a");
    expect(await journal.state("a")).toEqual({ status: "started" });
    await journal.done("a", "result A");
    await journal.started("b");
    // A "started" after "done" (a replayed line) does not undo the result.
    await journal.started("a");
    expect(await journal.state("a")).toEqual({ status: "done", result: "result A" });

    const again = new ActionJournal(dir);
    expect(await again.state("a")).toEqual({ status: "done", result: "result A" });
    expect(await again.state("b")).toEqual({ status: "started" });
    expect((await fs.readFile(path.join(dir, JOURNAL_FILE_NAME), "utf8")).trim().split("\n")).toHaveLength(4);
  });
});

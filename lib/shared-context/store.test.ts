import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, CorruptFileError, NotFoundError } from "@/lib/errors";
import { SharedContextFileSchema } from "./schema";
import { decideConflict, readSharedContext, sharedContextFile, writeSharedContext } from "./store";

let root: string;
let n = 0;
const freshDir = async () => {
  const dir = path.join(root, `conv_${++n}`);
  await fs.mkdir(dir, { recursive: true });
  return dir;
};

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-shared-"));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe("shared context store", () => {
  it("reads an empty context before the first write and persists writes in the schema's shape", async () => {
    const dir = await freshDir();
    expect(await readSharedContext(dir)).toEqual({ version: 1, entries: {}, pending: [], history: [] });
    const d = await writeSharedContext(dir, { key: "plan", value: "step 1", mode: "overwrite", expected_version: 0, author: "Team Leader", author_role: "leader" });
    expect(d).toMatchObject({ outcome: "applied", rule: "fresh", version: 1 });
    const onDisk = SharedContextFileSchema.parse(JSON.parse(await fs.readFile(sharedContextFile(dir), "utf8")));
    expect(onDisk.entries.plan).toMatchObject({ value: "step 1", version: 1, author: "Team Leader" });
    expect(onDisk.history).toHaveLength(1);
    expect(await readSharedContext(dir)).toEqual(onDisk);
  });

  it("50 concurrent appends serialize: every line is kept and the version is 50", async () => {
    const dir = await freshDir();
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) => writeSharedContext(dir, { key: "notes", value: `line ${i}`, mode: "append", author: `agent-${i}`, author_role: "agent" })),
    );
    expect(decisions.map((d) => d.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const file = await readSharedContext(dir);
    const lines = file.entries.notes!.value.split("\n");
    expect(lines).toHaveLength(50);
    expect(new Set(lines)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `line ${i}`)));
    expect(file.entries.notes!.version).toBe(50);
  });

  it("50 concurrent overwrites all based on version 0: one applies, the other 49 wait for a person, none is lost or silent", async () => {
    const dir = await freshDir();
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        writeSharedContext(dir, { key: "owner", value: `agent ${i}`, mode: "overwrite", expected_version: 0, author: `agent-${i}`, author_role: "agent", windowMs: 60_000 }),
      ),
    );
    expect(decisions.filter((d) => d.outcome === "applied")).toHaveLength(1);
    expect(decisions.filter((d) => d.outcome === "pending")).toHaveLength(49);
    const file = await readSharedContext(dir);
    expect(file.entries.owner!.version).toBe(1);
    expect(file.pending).toHaveLength(49);
    expect(file.history).toHaveLength(50);
    // Every proposed value is either the current value or waiting in pending.
    const kept = new Set([file.entries.owner!.value, ...file.pending.map((c) => c.proposed.value)]);
    expect(kept.size).toBe(50);
  });

  it("50 concurrent writers on different keys and one shared key: no key and no line is lost", async () => {
    const dir = await freshDir();
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const own = writeSharedContext(dir, { key: `agent.${i}`, value: `mine ${i}`, mode: "overwrite", expected_version: 0, author: `agent-${i}`, author_role: "agent" });
        const shared = writeSharedContext(dir, { key: "log", value: `${i}`, mode: "append", author: `agent-${i}`, author_role: "agent" });
        const [a, b] = await Promise.all([own, shared]);
        expect(a).toMatchObject({ outcome: "applied", rule: "fresh", version: 1 });
        expect(b.outcome).toBe("applied");
      }),
    );
    const file = await readSharedContext(dir);
    expect(Object.keys(file.entries)).toHaveLength(51);
    for (let i = 0; i < 50; i++) expect(file.entries[`agent.${i}`]).toMatchObject({ value: `mine ${i}`, version: 1 });
    expect(file.entries.log!.version).toBe(50);
    expect(file.entries.log!.value.split("\n").map(Number).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(file.history).toHaveLength(50);
  });

  it("a person's decision is applied and persisted; unknown is 404, decided is 409", async () => {
    const dir = await freshDir();
    const t0 = new Date("2026-07-11T10:00:00.000Z");
    await writeSharedContext(dir, { key: "api", value: "v1", mode: "overwrite", expected_version: 0, author: "a", author_role: "agent", now: t0 });
    await writeSharedContext(dir, { key: "api", value: "a2", mode: "overwrite", expected_version: 1, author: "a", author_role: "agent", now: new Date(t0.getTime() + 10) });
    const pending = await writeSharedContext(dir, { key: "api", value: "b2", mode: "overwrite", expected_version: 1, author: "b", author_role: "agent", now: new Date(t0.getTime() + 20) });
    expect(pending.outcome).toBe("pending");
    const id = pending.conflict!.conflict_id;
    expect((await readSharedContext(dir)).pending.map((c) => c.conflict_id)).toEqual([id]);
    const decided = await decideConflict(dir, id, "take_proposed", "person");
    expect(decided).toMatchObject({ outcome: "applied", version: 3 });
    const file = await readSharedContext(dir);
    expect(file.entries.api).toMatchObject({ value: "b2", version: 3, decided_by: "person" });
    expect(file.pending).toEqual([]);
    await expect(decideConflict(dir, id, "keep_current", "person")).rejects.toBeInstanceOf(ConflictError);
    await expect(decideConflict(dir, "conflict_unknown", "keep_current", "person")).rejects.toBeInstanceOf(NotFoundError);
    await expect(decideConflict(await freshDir(), "conflict_unknown", "keep_current", "person")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a corrupt file is reported, never replaced", async () => {
    const dir = await freshDir();
    await fs.writeFile(sharedContextFile(dir), "{ not json");
    await expect(readSharedContext(dir)).rejects.toBeInstanceOf(CorruptFileError);
    await expect(writeSharedContext(dir, { key: "k", value: "v", mode: "append", author: "a", author_role: "agent" })).rejects.toBeInstanceOf(CorruptFileError);
    expect(await fs.readFile(sharedContextFile(dir), "utf8")).toBe("{ not json");
  });
});

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, CorruptFileError, NotFoundError } from "@/lib/contracts/errors";
import { FileQueues, toPythonJson } from "@/lib/store";
import { SharedContextFileSchema, type AuthorRole } from "./schema";
import { decideConflict, readSharedContext, sharedContextFile, sharedContextFileChange, writeSharedContext } from "./store";

let root: string;
let n = 0;
// The process's write queues: every writer of a file shares them, as the engine and the routes do.
const queues = new FileQueues();
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
    const d = await writeSharedContext(sharedContextFileChange(queues, dir), { key: "plan", value: "step 1", mode: "overwrite", expected_version: 0, author: "Team Leader", author_role: "leader" });
    expect(d).toMatchObject({ outcome: "applied", rule: "fresh", version: 1 });
    const onDisk = SharedContextFileSchema.parse(JSON.parse(await fs.readFile(sharedContextFile(dir), "utf8")));
    expect(onDisk.entries.plan).toMatchObject({ value: "step 1", version: 1, author: "Team Leader" });
    expect(onDisk.history).toHaveLength(1);
    expect(await readSharedContext(dir)).toEqual(onDisk);
  });

  it("50 concurrent appends serialize: every line is kept and the version is 50", async () => {
    const dir = await freshDir();
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) => writeSharedContext(sharedContextFileChange(queues, dir), { key: "notes", value: `line ${i}`, mode: "append", author: `agent-${i}`, author_role: "agent" })),
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
        writeSharedContext(sharedContextFileChange(queues, dir), { key: "owner", value: `agent ${i}`, mode: "overwrite", expected_version: 0, author: `agent-${i}`, author_role: "agent", windowMs: 60_000 }),
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
        const own = writeSharedContext(sharedContextFileChange(queues, dir), { key: `agent.${i}`, value: `mine ${i}`, mode: "overwrite", expected_version: 0, author: `agent-${i}`, author_role: "agent" });
        const shared = writeSharedContext(sharedContextFileChange(queues, dir), { key: "log", value: `${i}`, mode: "append", author: `agent-${i}`, author_role: "agent" });
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
    await writeSharedContext(sharedContextFileChange(queues, dir), { key: "api", value: "v1", mode: "overwrite", expected_version: 0, author: "a", author_role: "agent", now: t0 });
    await writeSharedContext(sharedContextFileChange(queues, dir), { key: "api", value: "a2", mode: "overwrite", expected_version: 1, author: "a", author_role: "agent", now: new Date(t0.getTime() + 10) });
    const pending = await writeSharedContext(sharedContextFileChange(queues, dir), { key: "api", value: "b2", mode: "overwrite", expected_version: 1, author: "b", author_role: "agent", now: new Date(t0.getTime() + 20) });
    expect(pending.outcome).toBe("pending");
    const id = pending.conflict!.conflict_id;
    expect((await readSharedContext(dir)).pending.map((c) => c.conflict_id)).toEqual([id]);
    const decided = await decideConflict(sharedContextFileChange(queues, dir), id, "take_proposed", "person");
    expect(decided).toMatchObject({ outcome: "applied", version: 3 });
    const file = await readSharedContext(dir);
    expect(file.entries.api).toMatchObject({ value: "b2", version: 3, decided_by: "person" });
    expect(file.pending).toEqual([]);
    await expect(decideConflict(sharedContextFileChange(queues, dir), id, "keep_current", "person")).rejects.toBeInstanceOf(ConflictError);
    await expect(decideConflict(sharedContextFileChange(queues, dir), "conflict_unknown", "keep_current", "person")).rejects.toBeInstanceOf(NotFoundError);
    await expect(decideConflict(sharedContextFileChange(queues, await freshDir()), "conflict_unknown", "keep_current", "person")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("a corrupt file is reported, never replaced", async () => {
    const dir = await freshDir();
    await fs.writeFile(sharedContextFile(dir), "{ not json");
    await expect(readSharedContext(dir)).rejects.toBeInstanceOf(CorruptFileError);
    await expect(writeSharedContext(sharedContextFileChange(queues, dir), { key: "k", value: "v", mode: "append", author: "a", author_role: "agent" })).rejects.toBeInstanceOf(CorruptFileError);
    expect(await fs.readFile(sharedContextFile(dir), "utf8")).toBe("{ not json");
  });
});

describe("the seed's rules at the store: a writer read version 3, someone else has since written version 4", () => {
  const T = Date.parse("2026-07-11T10:00:00.000Z");
  const at = (ms: number) => new Date(T + ms);
  type Who = { author: string; author_role: AuthorRole };
  const A: Who = { author: "研究员-1", author_role: "agent" };
  const B: Who = { author: "审查员-2", author_role: "agent" };
  const C: Who = { author: "测试员-3", author_role: "agent" };
  const LEADER: Who = { author: "Team Leader", author_role: "leader" };
  const PERSON: Who = { author: "person", author_role: "person" };

  /** A folder whose "plan" is at version 4, written by `v4Author` at T+10 s (versions 1–3 by A). */
  async function atV4(v4Author: Who = C): Promise<string> {
    const dir = await freshDir();
    for (let v = 0; v < 3; v++) {
      await writeSharedContext(sharedContextFileChange(queues, dir), { key: "plan", value: `A v${v + 1}`, mode: "overwrite", expected_version: v, ...A, requested_at: at(v * 100), windowMs: 2000 });
    }
    const v4 = await writeSharedContext(sharedContextFileChange(queues, dir), { key: "plan", value: "v4", mode: "overwrite", expected_version: 3, ...v4Author, requested_at: at(10_000), windowMs: 2000 });
    expect(v4).toMatchObject({ outcome: "applied", rule: "fresh", version: 4 });
    return dir;
  }

  /** The file on disk, parsed with its schema; its text must be the Python-style writer's (2-space indent, no ASCII escaping). */
  async function onDisk(dir: string) {
    const text = await fs.readFile(sharedContextFile(dir), "utf8");
    const file = SharedContextFileSchema.parse(JSON.parse(text));
    expect(text).toBe(toPythonJson(JSON.parse(text)));
    expect((await fs.readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    return file;
  }

  const staleFrom = (who: Who, requestedMs: number, value = `${who.author} based on v3`) =>
    ({ key: "plan", value, mode: "overwrite" as const, expected_version: 3, ...who, requested_at: at(requestedMs), windowMs: 2000 });

  it("equal authority, inside the conflict window: version 4 stays, and a pending conflict_resolution holds both values", async () => {
    const dir = await atV4();
    const d = await writeSharedContext(sharedContextFileChange(queues, dir), staleFrom(B, 11_000));
    expect(d).toMatchObject({ outcome: "pending", rule: "awaiting_person", version: 4 });
    const file = await onDisk(dir);
    expect(file.entries.plan).toMatchObject({ value: "v4", version: 4, author: "测试员-3" });
    expect(file.pending).toEqual([expect.objectContaining({ key: "plan", current: expect.objectContaining({ value: "v4", version: 4 }), proposed: expect.objectContaining({ value: "审查员-2 based on v3", expected_version: 3 }) })]);
    expect(file.history!.at(-1)).toMatchObject({
      rule: "awaiting_person",
      outcome: "pending",
      winner: null,
      loser: null,
      current_value: "v4",
      current_version: 4,
      proposed_value: "审查员-2 based on v3",
      expected_version: 3,
      version: 4,
      current_requested_at: at(10_000).toISOString(),
      proposed_requested_at: at(11_000).toISOString(),
      window_ms: 2000,
    });
    // The person then decides: the record names the winner and the loser, with both values.
    const decided = await decideConflict(sharedContextFileChange(queues, dir), d.conflict!.conflict_id, "take_proposed", "person", at(20_000));
    expect(decided.resolution).toMatchObject({ rule: "person_decision", winner: { side: "proposed", author: "审查员-2" }, loser: { side: "current", author: "测试员-3" }, current_value: "v4", proposed_value: "审查员-2 based on v3", version: 5 });
    expect((await onDisk(dir)).entries.plan).toMatchObject({ value: "审查员-2 based on v3", version: 5, decided_by: "person" });
  });

  it("equal authority, outside the conflict window: the later request wins, version 5, and conflict_resolution names winner and loser with both values", async () => {
    const dir = await atV4();
    const d = await writeSharedContext(sharedContextFileChange(queues, dir), staleFrom(B, 12_000));
    expect(d).toMatchObject({ outcome: "applied", rule: "later_wins", version: 5 });
    const file = await onDisk(dir);
    expect(file.entries.plan).toMatchObject({ value: "审查员-2 based on v3", version: 5, author: "审查员-2", requested_at: at(12_000).toISOString() });
    expect(file.pending).toEqual([]);
    expect(file.history!.at(-1)).toMatchObject({
      rule: "later_wins",
      outcome: "applied",
      winner: { side: "proposed", author: "审查员-2", author_role: "agent" },
      loser: { side: "current", author: "测试员-3", author_role: "agent" },
      current_value: "v4",
      current_version: 4,
      proposed_value: "审查员-2 based on v3",
      expected_version: 3,
      version: 5,
      conflict_id: null,
    });
  });

  it("racing in one process (Promise.all): the queue order is not the request order — the earlier request loses even though it is applied second", async () => {
    const dir = await atV4();
    // C's fresh write was requested 3 s after B's stale one but reaches the write queue first.
    const [fresh, stale] = await Promise.all([
      writeSharedContext(sharedContextFileChange(queues, dir), { key: "plan", value: "C v5", mode: "overwrite", expected_version: 4, ...C, requested_at: at(15_000), windowMs: 2000 }),
      writeSharedContext(sharedContextFileChange(queues, dir), staleFrom(B, 12_000)),
    ]);
    expect(fresh).toMatchObject({ outcome: "applied", rule: "fresh", version: 5 });
    expect(stale).toMatchObject({ outcome: "rejected", rule: "later_wins", version: 5 });
    expect(stale.resolution).toMatchObject({ winner: { side: "current", author: "测试员-3" }, loser: { side: "proposed", author: "审查员-2" }, current_value: "C v5", proposed_value: "审查员-2 based on v3" });
    const file = await onDisk(dir);
    expect(file.entries.plan).toMatchObject({ value: "C v5", version: 5 });
    expect(file.history!.slice(-2).map((r) => [r.rule, r.outcome])).toEqual([["fresh", "applied"], ["later_wins", "rejected"]]);
  });

  it("racing in one process (Promise.all): two equal-authority overwrites of version 4 requested at the same instant — one applies, the other waits for a person; neither is lost", async () => {
    const dir = await atV4();
    const same = at(15_000);
    const decisions = await Promise.all(
      [A, B].map((who) => writeSharedContext(sharedContextFileChange(queues, dir), { key: "plan", value: `${who.author} v5`, mode: "overwrite", expected_version: 4, ...who, requested_at: same, windowMs: 0 })),
    );
    expect(decisions.map((d) => [d.rule, d.outcome])).toEqual([["fresh", "applied"], ["awaiting_person", "pending"]]);
    const file = await onDisk(dir);
    expect(file.entries.plan).toMatchObject({ value: "研究员-1 v5", version: 5 });
    expect(file.pending.map((c) => c.proposed.value)).toEqual(["审查员-2 v5"]);
  });

  it("coordinator vs agent: the leader's stale write beats an agent's value; an agent's stale write loses to the leader's, however late", async () => {
    const dir = await atV4();
    const led = await writeSharedContext(sharedContextFileChange(queues, dir), staleFrom(LEADER, 10_001));
    expect(led).toMatchObject({ outcome: "applied", rule: "leader_wins", version: 5 });
    expect(led.resolution).toMatchObject({ winner: { side: "proposed", author_role: "leader" }, loser: { side: "current", author: "测试员-3" }, current_value: "v4", proposed_value: "Team Leader based on v3" });
    const lost = await writeSharedContext(sharedContextFileChange(queues, dir), { ...staleFrom(B, 999_000), expected_version: 4 });
    expect(lost).toMatchObject({ outcome: "rejected", rule: "leader_wins", version: 5 });
    expect(lost.resolution).toMatchObject({ winner: { side: "current", author_role: "leader" }, loser: { side: "proposed", author: "审查员-2" }, current_value: "Team Leader based on v3", proposed_value: "审查员-2 based on v3" });
    expect((await onDisk(dir)).entries.plan).toMatchObject({ value: "Team Leader based on v3", version: 5 });
  });

  it("person vs agent: a person's stale write beats an agent's value; an agent cannot undo it, nor a value the person kept", async () => {
    const dir = await atV4();
    const mine = await writeSharedContext(sharedContextFileChange(queues, dir), staleFrom(PERSON, 10_001, "the person's plan"));
    expect(mine).toMatchObject({ outcome: "applied", rule: "leader_wins", version: 5 });
    expect(mine.resolution).toMatchObject({ winner: { side: "proposed", author_role: "person" }, loser: { side: "current", author: "测试员-3", author_role: "agent" }, current_value: "v4", proposed_value: "the person's plan" });
    expect(await writeSharedContext(sharedContextFileChange(queues, dir), { ...staleFrom(A, 999_000), expected_version: 4 })).toMatchObject({ outcome: "rejected", rule: "leader_wins", version: 5 });

    // A value the person kept when deciding a conflict between two agents ranks as theirs too.
    const other = await atV4(A);
    const waiting = await writeSharedContext(sharedContextFileChange(queues, other), staleFrom(B, 10_500));
    await decideConflict(sharedContextFileChange(queues, other), waiting.conflict!.conflict_id, "keep_current", "person", at(20_000));
    const again = await writeSharedContext(sharedContextFileChange(queues, other), staleFrom(B, 999_000));
    expect(again).toMatchObject({ outcome: "rejected", rule: "leader_wins", version: 4 });
    expect((await onDisk(other)).entries.plan).toMatchObject({ value: "v4", version: 4, decided_by: "person" });
  });

  it("a write into a conversation folder deleted meanwhile is NotFound, not a disk error", async () => {
    const dir = await freshDir();
    await fs.rm(dir, { recursive: true });
    await expect(writeSharedContext(sharedContextFileChange(queues, dir), { key: "k", value: "v", mode: "append", ...A })).rejects.toBeInstanceOf(NotFoundError);
  });
});

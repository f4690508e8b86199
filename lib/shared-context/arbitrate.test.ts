import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { appendValue, applyDecision, applyWrite, conflictWindowMs, DEFAULT_CONFLICT_WINDOW_MS, type WriteInput } from "./arbitrate";
import { timelineEventsOf } from "./events";
import { emptySharedContext, MAX_PENDING, MAX_VALUE_LENGTH, SharedContextFileSchema, type AuthorRole, type SharedContextFile } from "./schema";

const T0 = Date.parse("2026-07-11T10:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);
let ids = 0;
const ctx = (ms: number, windowMs = 2000) => ({ now: at(ms), windowMs, newConflictId: () => `conflict_${++ids}` });

const agentA = { author: "研究员-1", author_role: "agent" as const };
const agentB = { author: "审查员-2", author_role: "agent" as const };
const leader = { author: "Team Leader", author_role: "leader" as const };
const person = { author: "person", author_role: "person" as const };

function write(file: SharedContextFile, w: Partial<WriteInput> & Pick<WriteInput, "author" | "author_role">, ms: number, windowMs?: number) {
  const out = applyWrite(file, { key: "api", value: "v", mode: "overwrite", ...w }, ctx(ms, windowMs));
  // Every file the rules produce is one the store may write.
  expect(SharedContextFileSchema.safeParse(out.file).success).toBe(true);
  return out;
}

/** A file where `author` wrote "api" = "first" at version 1 at time `ms`. */
function seeded(author: { author: string; author_role: AuthorRole }, ms = 0): SharedContextFile {
  return write(emptySharedContext(), { ...author, value: "first", expected_version: 0 }, ms).file;
}

describe("append", () => {
  it("creates the key at version 1, then adds text on a new line and bumps the version; never a conflict or a resolution", () => {
    let file = emptySharedContext();
    const first = write(file, { ...agentA, mode: "append", value: "checked a.ts" }, 0);
    expect(first.decision).toMatchObject({ outcome: "applied", rule: "append", version: 1, before: null, resolution: null });
    file = first.file;
    // Even from another agent, right away, with no expected_version: appends never conflict.
    const second = write(file, { ...agentB, mode: "append", value: "checked b.ts", expected_version: 0 }, 10);
    expect(second.decision).toMatchObject({ outcome: "applied", version: 2, conflict: null, resolution: null });
    expect(second.file.entries.api).toMatchObject({ value: "checked a.ts\nchecked b.ts", version: 2, author: "审查员-2" });
    expect(second.file.pending).toEqual([]);
    expect(second.file.history).toEqual([]);
  });

  it("appendValue puts no newline before the first text", () => {
    expect(appendValue(null, "x")).toBe("x");
    expect(appendValue("", "x")).toBe("x");
    expect(appendValue("a", "b")).toBe("a\nb");
  });

  it("refuses to grow a value past the limit", () => {
    const file = write(emptySharedContext(), { ...agentA, mode: "append", value: "x".repeat(MAX_VALUE_LENGTH) }, 0).file;
    expect(() => write(file, { ...agentA, mode: "append", value: "y" }, 1)).toThrow(ValidationError);
  });
});

describe("overwrite", () => {
  it("needs expected_version", () => {
    expect(() => write(emptySharedContext(), { ...agentA }, 0)).toThrow(ValidationError);
  });

  it("fresh: expected_version equal to the current version is applied and bumps the version, and is still recorded", () => {
    const file = seeded(agentA);
    const out = write(file, { ...agentB, value: "second", expected_version: 1 }, 50);
    expect(out.decision).toMatchObject({ outcome: "applied", rule: "fresh", version: 2 });
    expect(out.file.entries.api).toMatchObject({ value: "second", version: 2, author: "审查员-2" });
    expect(out.decision.resolution).toMatchObject({
      rule: "fresh",
      winner: { side: "proposed", author: "审查员-2" },
      loser: { side: "current", author: "研究员-1" },
      current_value: "first",
      proposed_value: "second",
      version: 2,
    });
  });

  it("a version newer than any the key had is refused (unknown_version)", () => {
    const out = write(seeded(agentA), { ...leader, value: "x", expected_version: 7 }, 5000);
    expect(out.decision).toMatchObject({ outcome: "rejected", rule: "unknown_version", version: 1 });
    expect(out.file.entries.api?.value).toBe("first");
  });

  describe("stale (rule 1: the leader wins)", () => {
    it("a leader's stale write is applied over an agent's value, even within the window", () => {
      let file = seeded(agentA);
      file = write(file, { ...agentA, value: "agent v2", expected_version: 1 }, 10).file;
      const out = write(file, { ...leader, value: "leader says", expected_version: 1 }, 20);
      expect(out.decision).toMatchObject({ outcome: "applied", rule: "leader_wins", version: 3 });
      expect(out.file.entries.api).toMatchObject({ value: "leader says", author_role: "leader", version: 3 });
      expect(out.decision.resolution).toMatchObject({ current_value: "agent v2", proposed_value: "leader says", winner: { side: "proposed", author_role: "leader" } });
    });

    it("an agent's stale write against a leader-written value loses, even much later", () => {
      let file = seeded(agentA);
      file = write(file, { ...leader, value: "leader v2", expected_version: 1 }, 10).file;
      const out = write(file, { ...agentB, value: "agent late", expected_version: 1 }, 60_000);
      expect(out.decision).toMatchObject({ outcome: "rejected", rule: "leader_wins", version: 2 });
      expect(out.file.entries.api).toMatchObject({ value: "leader v2", version: 2 });
      expect(out.decision.resolution).toMatchObject({ winner: { side: "current", author_role: "leader" }, loser: { side: "proposed", author: "审查员-2" } });
    });

    it("a person ranks like the leader: a person's stale write beats an agent's value", () => {
      let file = seeded(agentA);
      file = write(file, { ...agentA, value: "agent v2", expected_version: 1 }, 10).file;
      expect(write(file, { ...person, value: "mine", expected_version: 1 }, 20).decision).toMatchObject({ outcome: "applied", rule: "leader_wins" });
    });
  });

  describe("stale (rule 2: the later write wins)", () => {
    it("same authority, outside the window: the later write is applied", () => {
      let file = seeded(agentA);
      file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
      const out = write(file, { ...agentB, value: "b late", expected_version: 1 }, 100 + 2000);
      expect(out.decision).toMatchObject({ outcome: "applied", rule: "later_wins", version: 3 });
      expect(out.file.entries.api?.value).toBe("b late");
    });

    it("same authority, a proposal timed before the current value (outside the window) loses", () => {
      let file = seeded(agentA);
      file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 10_000).file;
      const out = write(file, { ...agentB, value: "b old", expected_version: 1 }, 5_000);
      expect(out.decision).toMatchObject({ outcome: "rejected", rule: "later_wins", version: 2 });
      expect(out.file.entries.api?.value).toBe("a v2");
    });

    it("two leaders' writes (same authority) also follow later-wins", () => {
      let file = seeded(leader);
      file = write(file, { ...leader, value: "l v2", expected_version: 1 }, 10).file;
      expect(write(file, { ...person, value: "p", expected_version: 1 }, 10 + 5000).decision).toMatchObject({ outcome: "applied", rule: "later_wins" });
    });
  });

  describe("stale (rule 3: within the window, a person decides)", () => {
    it("same authority within the window: nothing is applied, a pending conflict holds both values", () => {
      let file = seeded(agentA);
      file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
      const out = write(file, { ...agentB, value: "b v2", expected_version: 1 }, 100 + 1999);
      expect(out.decision).toMatchObject({ outcome: "pending", rule: "awaiting_person", version: 2 });
      expect(out.file.entries.api).toMatchObject({ value: "a v2", version: 2 });
      expect(out.file.pending).toHaveLength(1);
      const conflict = out.file.pending[0]!;
      expect(conflict).toMatchObject({ key: "api", current: { value: "a v2", version: 2 }, proposed: { value: "b v2", author: "审查员-2", expected_version: 1 } });
      expect(out.decision.conflict).toEqual(conflict);
      expect(out.decision.resolution).toMatchObject({ outcome: "pending", winner: null, loser: null, current_value: "a v2", proposed_value: "b v2", conflict_id: conflict.conflict_id });
    });

    it("the window is configurable: 0 leaves rule 3 only exact ties, a wide one catches slower pairs", () => {
      let file = seeded(agentA);
      file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
      expect(write(file, { ...agentB, value: "b", expected_version: 1 }, 101, 0).decision.rule).toBe("later_wins");
      expect(write(file, { ...agentB, value: "b", expected_version: 1 }, 100 + 9000, 10_000).decision.rule).toBe("awaiting_person");
    });

    it("conflictWindowMs reads ASTRION_CONFLICT_WINDOW_MS and falls back to 2000 ms", () => {
      expect(conflictWindowMs({})).toBe(DEFAULT_CONFLICT_WINDOW_MS);
      expect(DEFAULT_CONFLICT_WINDOW_MS).toBe(2000);
      expect(conflictWindowMs({ ASTRION_CONFLICT_WINDOW_MS: "500" })).toBe(500);
      expect(conflictWindowMs({ ASTRION_CONFLICT_WINDOW_MS: "0" })).toBe(0);
      expect(conflictWindowMs({ ASTRION_CONFLICT_WINDOW_MS: "-3" })).toBe(2000);
      expect(conflictWindowMs({ ASTRION_CONFLICT_WINDOW_MS: "soon" })).toBe(2000);
    });
  });
});

describe("a person's decision", () => {
  function pendingFile() {
    let file = seeded(agentA);
    file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
    const out = write(file, { ...agentB, value: "b v2", expected_version: 1 }, 200);
    return { file: out.file, id: out.decision.conflict!.conflict_id };
  }

  it("take_proposed writes the proposal, bumps the version, clears the conflict and records both values", () => {
    const { file, id } = pendingFile();
    const out = applyDecision(file, id, "take_proposed", "person", at(5000));
    expect(out.file.entries.api).toMatchObject({ value: "b v2", version: 3, author: "审查员-2", decided_by: "person" });
    expect(out.file.pending).toEqual([]);
    expect(out.decision).toMatchObject({ outcome: "applied", rule: "person_decision", version: 3 });
    expect(out.decision.resolution).toMatchObject({
      rule: "person_decision",
      decided_by: "person",
      winner: { side: "proposed", author: "审查员-2" },
      loser: { side: "current", author: "研究员-1" },
      current_value: "a v2",
      proposed_value: "b v2",
      conflict_id: id,
    });
    expect(SharedContextFileSchema.safeParse(out.file).success).toBe(true);
  });

  it("keep_current leaves the value and its version, clears the conflict and records both values", () => {
    const { file, id } = pendingFile();
    const out = applyDecision(file, id, "keep_current", "person", at(5000));
    expect(out.file.entries.api).toMatchObject({ value: "a v2", version: 2 });
    expect(out.file.pending).toEqual([]);
    expect(out.decision).toMatchObject({ outcome: "rejected", rule: "person_decision", version: 2 });
    expect(out.decision.resolution).toMatchObject({ winner: { side: "current" }, loser: { side: "proposed" }, current_value: "a v2", proposed_value: "b v2" });
  });

  it("take_proposed applies over whatever the key holds at decision time, recording that value", () => {
    const { file, id } = pendingFile();
    const moved = write(file, { ...leader, value: "leader v3", expected_version: 2 }, 300).file;
    const out = applyDecision(moved, id, "take_proposed", "person", at(5000));
    expect(out.file.entries.api).toMatchObject({ value: "b v2", version: 4 });
    expect(out.decision.resolution).toMatchObject({ current_value: "leader v3", current_version: 3 });
  });

  it("an unknown conflict is NotFound; a decided one is a Conflict", () => {
    const { file, id } = pendingFile();
    expect(() => applyDecision(file, "conflict_nope", "keep_current", "person", at(1))).toThrow(NotFoundError);
    const decided = applyDecision(file, id, "keep_current", "person", at(1)).file;
    expect(() => applyDecision(decided, id, "take_proposed", "person", at(2))).toThrow(ConflictError);
  });
});

describe("no silent overwrite", () => {
  it("every overwrite decision yields exactly one conflict_resolution event with both values; appends yield a write event", () => {
    let file = emptySharedContext();
    const decisions = [];
    const steps: Array<[Partial<WriteInput> & Pick<WriteInput, "author" | "author_role">, number]> = [
      [{ ...agentA, value: "v1", expected_version: 0 }, 0], // fresh, new key
      [{ ...agentA, value: "own v2", expected_version: 1 }, 10], // fresh over own value
      [{ ...agentB, value: "b v3", expected_version: 2 }, 20], // fresh over another author's value
      [{ ...leader, value: "leader", expected_version: 1 }, 30], // stale, leader wins
      [{ ...agentA, value: "a loses", expected_version: 2 }, 40_000], // stale, leader's value kept
      [{ ...agentA, mode: "append", value: "note" }, 40_100], // append (the value stays the leader's)
      [{ ...agentA, value: "a fresh", expected_version: 5 }, 40_150], // fresh: now an agent's value
      [{ ...agentB, value: "b stale", expected_version: 1 }, 40_200], // stale, same authority, within window
      [{ ...agentA, value: "a later", expected_version: 1 }, 50_000], // stale, later wins
      [{ ...agentA, value: "x", expected_version: 99 }, 50_100], // unknown version
    ];
    for (const [w, ms] of steps) {
      const out = write(file, w, ms);
      file = out.file;
      decisions.push(out.decision);
    }
    const overwrites = decisions.filter((d) => d.mode === "overwrite");
    expect(overwrites.map((d) => d.rule)).toEqual(["fresh", "fresh", "fresh", "leader_wins", "leader_wins", "fresh", "awaiting_person", "later_wins", "unknown_version"]);
    expect(overwrites.map((d) => d.outcome)).toEqual(["applied", "applied", "applied", "applied", "rejected", "applied", "pending", "applied", "rejected"]);
    for (const d of overwrites) {
      const events = timelineEventsOf(d, "agent:1");
      expect(events).toHaveLength(1);
      const e = events[0]!;
      expect(e).toMatchObject({ type: "event", action: "conflict_resolution", resource: "shared_context:api", from: "system", to: "agent:1", version: d.version });
      expect(e.status).toBe({ applied: "ok", rejected: "refused", pending: "pending" }[d.outcome]);
      expect(e.payload).toMatchObject({ key: "api", rule: d.rule, current_value: d.before?.value ?? null, proposed_value: d.proposed.value });
      expect(e.payload).toHaveProperty("winner");
      expect(e.payload).toHaveProperty("loser");
    }
    const append = decisions.find((d) => d.mode === "append")!;
    expect(timelineEventsOf(append, "agent:1")).toEqual([
      expect.objectContaining({ action: "shared_context_write", from: "agent:1", to: "system", status: "ok", payload: expect.objectContaining({ appended: "note" }) }),
    ]);
    // The file's history holds the same resolutions, in order.
    expect(file.history?.map((r) => r.rule)).toEqual(overwrites.map((d) => d.rule));
    // The version counts exactly the applied writes: a value only changes through a recorded decision or an append.
    expect(file.entries.api?.version).toBe(decisions.filter((d) => d.outcome === "applied").length);
  });
});

describe("a stale overwrite by an equal-authority writer: it read version 3, someone else has since written version 4", () => {
  const agentC = { author: "测试员-3", author_role: "agent" as const };
  const T4 = 10_000; // when version 4 was requested (and written)

  /** "api" at version 4 by agent C; versions 1–3 by agent A, the last one read by agent B. */
  function atV4(): SharedContextFile {
    let file = seeded(agentA);
    file = write(file, { ...agentA, value: "A v2", expected_version: 1 }, 100).file;
    file = write(file, { ...agentA, value: "A v3", expected_version: 2 }, 200).file;
    file = write(file, { ...agentC, value: "C v4", expected_version: 3 }, T4).file;
    expect(file.entries.api).toMatchObject({ value: "C v4", version: 4, requested_at: at(T4).toISOString() });
    return file;
  }

  /** Agent B's overwrite based on version 3, requested at `requestedMs`, arbitrated at `arbitratedMs`. */
  function staleB(file: SharedContextFile, requestedMs: number, arbitratedMs = requestedMs, windowMs = 2000) {
    const out = applyWrite(
      file,
      { key: "api", value: "B based on v3", mode: "overwrite", expected_version: 3, ...agentB, requested_at: at(requestedMs) },
      ctx(arbitratedMs, windowMs),
    );
    expect(SharedContextFileSchema.safeParse(out.file).success).toBe(true);
    return out;
  }

  it("inside the conflict window: nothing is applied; the value stays version 4 and the pending record holds both values", () => {
    const out = staleB(atV4(), T4 + 1999);
    expect(out.decision).toMatchObject({ outcome: "pending", rule: "awaiting_person", version: 4 });
    expect(out.file.entries.api).toMatchObject({ value: "C v4", version: 4, author: "测试员-3" });
    expect(out.decision.resolution).toEqual({
      key: "api",
      rule: "awaiting_person",
      outcome: "pending",
      winner: null,
      loser: null,
      current_value: "C v4",
      current_version: 4,
      proposed_value: "B based on v3",
      expected_version: 3,
      version: 4,
      conflict_id: out.decision.conflict!.conflict_id,
      decided_by: null,
      at: at(T4 + 1999).toISOString(),
      current_requested_at: at(T4).toISOString(),
      proposed_requested_at: at(T4 + 1999).toISOString(),
      window_ms: 2000,
    });
    expect(out.file.pending).toEqual([out.decision.conflict]);
    expect(out.file.history?.at(-1)).toEqual(out.decision.resolution);
  });

  it("inside the window, then a person takes the proposal: version 5, and the record names winner (B) and loser (C) with both values", () => {
    const pending = staleB(atV4(), T4 + 500);
    const id = pending.decision.conflict!.conflict_id;
    const out = applyDecision(pending.file, id, "take_proposed", "person", at(T4 + 60_000));
    expect(out.file.entries.api).toMatchObject({ value: "B based on v3", version: 5, author: "审查员-2", decided_by: "person" });
    expect(out.decision.resolution).toMatchObject({
      rule: "person_decision",
      outcome: "applied",
      winner: { side: "proposed", author: "审查员-2", author_role: "agent" },
      loser: { side: "current", author: "测试员-3", author_role: "agent" },
      current_value: "C v4",
      current_version: 4,
      proposed_value: "B based on v3",
      expected_version: 3,
      version: 5,
      conflict_id: id,
      decided_by: "person",
    });
  });

  it("outside the conflict window: the later request wins; version 5, and the record names winner (B) and loser (C) with both values", () => {
    const out = staleB(atV4(), T4 + 2000);
    expect(out.decision).toMatchObject({ outcome: "applied", rule: "later_wins", version: 5 });
    expect(out.file.entries.api).toMatchObject({ value: "B based on v3", version: 5, author: "审查员-2", author_role: "agent" });
    expect(out.file.pending).toEqual([]);
    expect(out.decision.resolution).toEqual({
      key: "api",
      rule: "later_wins",
      outcome: "applied",
      winner: { side: "proposed", author: "审查员-2", author_role: "agent" },
      loser: { side: "current", author: "测试员-3", author_role: "agent" },
      current_value: "C v4",
      current_version: 4,
      proposed_value: "B based on v3",
      expected_version: 3,
      version: 5,
      conflict_id: null,
      decided_by: null,
      at: at(T4 + 2000).toISOString(),
      current_requested_at: at(T4).toISOString(),
      proposed_requested_at: at(T4 + 2000).toISOString(),
      window_ms: 2000,
    });
  });

  it("'later' is the request's time, not its arrival: requested before version 4 but arbitrated after it, the stale write loses", () => {
    // B asked 3 s before C, but waited in the write queue and is arbitrated after C's write.
    const out = staleB(atV4(), T4 - 3000, T4 + 50);
    expect(out.decision).toMatchObject({ outcome: "rejected", rule: "later_wins", version: 4 });
    expect(out.file.entries.api).toMatchObject({ value: "C v4", version: 4 });
    expect(out.decision.resolution).toMatchObject({
      winner: { side: "current", author: "测试员-3" },
      loser: { side: "proposed", author: "审查员-2" },
      current_value: "C v4",
      proposed_value: "B based on v3",
      current_requested_at: at(T4).toISOString(),
      proposed_requested_at: at(T4 - 3000).toISOString(),
      at: at(T4 + 50).toISOString(),
    });
    // Requested shortly before C (inside the window) it is too close to call, however late it arrives.
    expect(staleB(atV4(), T4 - 500, T4 + 60_000).decision).toMatchObject({ outcome: "pending", rule: "awaiting_person" });
  });

  it("two requests at the same instant are never 'clearly later': a person decides even with the window at 0", () => {
    expect(staleB(atV4(), T4, T4 + 5, 0).decision).toMatchObject({ outcome: "pending", rule: "awaiting_person" });
    expect(staleB(atV4(), T4 + 1, T4 + 5, 0).decision).toMatchObject({ outcome: "applied", rule: "later_wins" });
  });

  it("a value from before request times existed: its updated_at stands in", () => {
    const file = atV4();
    const legacy = { ...file, entries: { api: { ...file.entries.api!, requested_at: undefined } } };
    expect(staleB(legacy, T4 + 1000).decision.rule).toBe("awaiting_person");
    expect(staleB(legacy, T4 + 3000).decision.rule).toBe("later_wins");
  });
});

describe("a person's decision carries a person's authority", () => {
  function decided(choice: "keep_current" | "take_proposed") {
    let file = seeded(agentA);
    file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
    const pending = write(file, { ...agentB, value: "b v2", expected_version: 1 }, 200);
    return applyDecision(pending.file, pending.decision.conflict!.conflict_id, choice, "person", at(1000)).file;
  }

  it("kept: the losing agent sending the same stale proposal again, however much later, is refused", () => {
    const file = decided("keep_current");
    expect(file.entries.api).toMatchObject({ value: "a v2", version: 2, decided_by: "person", decided_at: at(1000).toISOString() });
    const retry = write(file, { ...agentB, value: "b v2", expected_version: 1 }, 600_000);
    expect(retry.decision).toMatchObject({ outcome: "rejected", rule: "leader_wins", version: 2 });
    expect(retry.file.entries.api?.value).toBe("a v2");
    expect(retry.decision.resolution).toMatchObject({
      winner: { side: "current", author: "研究员-1", decided_by: "person" },
      loser: { side: "proposed", author: "审查员-2" },
      current_value: "a v2",
      proposed_value: "b v2",
    });
  });

  it("taken: another agent's stale write is refused; a fresh one (it read the decision) is applied; the leader is arbitrated by time", () => {
    const file = decided("take_proposed");
    expect(file.entries.api).toMatchObject({ value: "b v2", version: 3, decided_by: "person" });
    expect(write(file, { ...agentA, value: "a again", expected_version: 2 }, 600_000).decision).toMatchObject({ outcome: "rejected", rule: "leader_wins" });
    expect(write(file, { ...agentA, value: "a builds on it", expected_version: 3 }, 1100).decision).toMatchObject({ outcome: "applied", rule: "fresh", version: 4 });
    // The decision's time counts, not the proposal's: the leader's request 1.5 s after it is inside the window.
    expect(write(file, { ...leader, value: "leader", expected_version: 2 }, 2500).decision).toMatchObject({ outcome: "pending", rule: "awaiting_person" });
    expect(write(file, { ...leader, value: "leader", expected_version: 2 }, 3000).decision).toMatchObject({ outcome: "applied", rule: "later_wins" });
  });
});

describe("an append does not lower a value's rank", () => {
  it("an agent's note appended to the leader's value leaves it the leader's: another agent's stale overwrite still loses", () => {
    let file = seeded(leader);
    file = write(file, { ...agentA, mode: "append", value: "agent's note" }, 100).file;
    expect(file.entries.api).toMatchObject({ value: "first\nagent's note", version: 2, author: "研究员-1", author_role: "agent", authority: "leader" });
    const out = write(file, { ...agentB, value: "agent B drops it all", expected_version: 1 }, 600_000);
    expect(out.decision).toMatchObject({ outcome: "rejected", rule: "leader_wins", version: 2 });
    expect(out.decision.resolution).toMatchObject({
      winner: { side: "current", author: "研究员-1", author_role: "agent", authority: "leader" },
      loser: { side: "proposed", author: "审查员-2" },
      current_value: "first\nagent's note",
      proposed_value: "agent B drops it all",
    });
    // A fresh overwrite replaces the whole value, and with it the leader's rank.
    const replaced = write(file, { ...agentA, value: "agent's own", expected_version: 2 }, 700_000).file;
    expect(replaced.entries.api).toMatchObject({ version: 3, authority: "agent" });
    expect(write(replaced, { ...agentB, value: "b", expected_version: 2 }, 800_000).decision).toMatchObject({ outcome: "applied", rule: "later_wins" });
  });

  it("a person's decision survives an agent's append", () => {
    let file = seeded(agentA);
    file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
    const pending = write(file, { ...agentB, value: "b v2", expected_version: 1 }, 200);
    file = applyDecision(pending.file, pending.decision.conflict!.conflict_id, "keep_current", "person", at(1000)).file;
    file = write(file, { ...agentA, mode: "append", value: "more" }, 2000).file;
    expect(write(file, { ...agentB, value: "b v2", expected_version: 1 }, 600_000).decision).toMatchObject({ outcome: "rejected", rule: "leader_wins" });
  });
});

describe("bounded", () => {
  it(`at most ${MAX_PENDING} writes wait for a person; the next one is refused (nothing changes) until one is decided`, () => {
    let file = seeded(agentA);
    file = write(file, { ...agentA, value: "a v2", expected_version: 1 }, 100).file;
    for (let i = 0; i < MAX_PENDING; i++) file = write(file, { ...agentB, value: `b ${i}`, expected_version: 1 }, 200).file;
    expect(file.pending).toHaveLength(MAX_PENDING);
    expect(() => write(file, { ...agentB, value: "one too many", expected_version: 1 }, 200)).toThrow(ConflictError);
    // Appends and fresh writes go on.
    expect(write(file, { ...agentB, value: "fresh", expected_version: 2 }, 300).decision.outcome).toBe("applied");
    const fewer = applyDecision(file, file.pending[0]!.conflict_id, "keep_current", "person", at(400)).file;
    expect(write(fewer, { ...leader, value: "l", expected_version: 1 }, 200).decision.outcome).toBe("pending");
  });
});

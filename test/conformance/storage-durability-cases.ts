/**
 * The conformance cases of a storage's durability (lib/runtime/team/ports.ts
 * `EngineStorage.durability`), its lines (timeline, context reports), its action journal, and
 * what a reopen and a crash keep. Cases marked `needsHold` hold durability back, so that "not
 * durable yet" can be seen at all; the others hold for any storage. Only the port and the
 * harness are used.
 */
import { expect } from "vitest";
import { startTrace } from "@/lib/contracts/envelope";
import type { Message } from "@/lib/contracts/on-disk";
import { timelineRecord, type TimelineRecord } from "@/lib/contracts/timeline-record";
import { timelineLine } from "@/lib/protocol";
import type { Durability } from "@/lib/store";
import { durabilityOf, settlesWithin, SOON, A_WHILE, turns, twoConversations, type StorageCase, type StorageHarness } from "./storage-contract";

const DURABILITY = "durability";
const LINES = "timeline and context reports";
const JOURNAL = "action journal";
const REOPEN = "reopen and crash";

function message(content: string): Message {
  return { role: "assistant", content };
}

function record(action: string): TimelineRecord {
  return timelineRecord(startTrace("user", "leader", { content: action }), { action });
}

/** Every mark durable implies every earlier mark durable (a later change is never durable first). */
function expectInOrder(d: Durability, marks: readonly number[]): void {
  for (let j = 0; j < marks.length; j++) {
    if (!d.isDurable(marks[j]!)) continue;
    for (let i = 0; i < j; i++) expect(d.isDurable(marks[i]!), `mark ${marks[j]} is durable before the earlier mark ${marks[i]}`).toBe(true);
  }
}

/** Makes one change of each kind to `convId`, returning the mark after each. */
async function changes(h: StorageHarness, convId: string, tag: string): Promise<number[]> {
  const s = h.storage;
  const d = durabilityOf(s, convId);
  const marks: number[] = [];
  await s.conversations.update(convId, { title: `Title ${tag}` });
  marks.push(d.durableMark);
  await s.conversations.updateLeaderMessages(convId, (f) => ({ ...f, messages: [...f.messages, message(tag)] }));
  marks.push(d.durableMark);
  await s.appendTimeline(convId, record(`action ${tag}`));
  marks.push(d.durableMark);
  await s.appendContextReport(convId, JSON.stringify({ report: tag }));
  marks.push(d.durableMark);
  return marks;
}

/** What {@link changes} made, read back. */
async function expectChanges(h: StorageHarness, convId: string, tags: readonly string[]): Promise<void> {
  const last = tags.at(-1)!;
  expect((await h.storage.conversations.get(convId)).title).toBe(`Title ${last}`);
  expect((await h.storage.conversations.readLeaderMessages(convId)).messages.map((m) => m.content)).toEqual(tags);
  expect((await h.timeline(convId)).map((r) => r.action)).toEqual(tags.map((t) => `action ${t}`));
  expect(await h.contextReports(convId)).toEqual(tags.map((t) => JSON.stringify({ report: t })));
}

export const DURABILITY_CASES: StorageCase[] = [
  {
    group: DURABILITY,
    name: "marks grow with the changes, become durable in order, and whenDurable resolves for them",
    async run(h) {
      const [fast] = twoConversations(h);
      const d = durabilityOf(h.storage, fast);
      const start = d.durableMark;
      const marks = [start, ...(await changes(h, fast, "a")), ...(await changes(h, fast, "b"))];
      for (let i = 1; i < marks.length; i++) expect(marks[i]).toBeGreaterThanOrEqual(marks[i - 1]!);
      expectInOrder(d, marks);
      // Each wait, when it resolves, finds every earlier mark durable too; waits are asked latest first.
      const waits = [...marks].reverse().map((mark) =>
        d.whenDurable(mark).then(() => {
          expect(d.isDurable(mark)).toBe(true);
          expectInOrder(d, marks);
        }),
      );
      for (let i = 0; i < 20 && !d.isDurable(marks.at(-1)!); i++) {
        await turns(1);
        expectInOrder(d, marks);
      }
      await Promise.all(waits);
      await d.whenDurable();
      for (const mark of marks) expect(d.isDurable(mark)).toBe(true);
    },
  },
  {
    group: DURABILITY,
    name: "while durability is held, changes resolve and are read back but none is durable; the release makes them so",
    needsHold: true,
    async run(h) {
      const [fast] = twoConversations(h);
      const d = durabilityOf(h.storage, fast);
      const release = h.holdDurability!();
      const made = changes(h, fast, "held");
      expect(await settlesWithin(made, SOON), "a change waited for durability").toBe(true);
      const marks = await made;
      expect((await h.storage.conversations.get(fast)).title).toBe("Title held");
      for (const mark of marks) expect(d.isDurable(mark)).toBe(false);
      const waited = d.whenDurable(marks.at(-1));
      const waitedAll = d.whenDurable();
      expect(await settlesWithin(waited, A_WHILE)).toBe(false);
      expect(await settlesWithin(waitedAll, 1)).toBe(false);
      release();
      await Promise.all([waited, waitedAll]);
      for (const mark of marks) expect(d.isDurable(mark)).toBe(true);
    },
  },
  {
    group: DURABILITY,
    name: "a later change is never durable before an earlier one, whatever the files and conversations",
    needsHold: true,
    async run(h) {
      const [fast, thinking] = twoConversations(h);
      const d = durabilityOf(h.storage, fast);
      await changes(h, fast, "before");
      await d.whenDurable();
      const release = h.holdDurability!();
      const marks = await changes(h, fast, "a");
      await changes(h, thinking, "other");
      marks.push(...(await changes(h, fast, "b")));
      for (const mark of marks) expect(d.isDurable(mark)).toBe(false);
      // Each wait, when it resolves, finds every earlier mark durable too; waits are asked latest first.
      const checks = [...marks].reverse().map((mark) => d.whenDurable(mark).then(() => expectInOrder(d, marks)));
      release();
      for (let i = 0; i < 20 && !d.isDurable(marks.at(-1)!); i++) {
        expectInOrder(d, marks);
        await turns(1);
      }
      await Promise.all(checks);
      await durabilityOf(h.storage, thinking).whenDurable();
    },
  },
  {
    group: LINES,
    name: "timeline records and context reports are kept in call order, per conversation, across a reopen",
    async run(h) {
      const [fast, thinking] = twoConversations(h);
      const s = h.storage;
      await Promise.all([s.appendTimeline(fast, record("one")), s.appendTimeline(thinking, record("other")), s.appendTimeline(fast, record("two"))]);
      // The conversation files' own append writes the same timeline, in the same order.
      await s.conversations.appendLine(fast, "timeline.jsonl", timelineLine(record("three")));
      await s.appendTimeline(fast, record("four"));
      await Promise.all(["r1", "r2", "r3"].map((r) => s.appendContextReport(fast, JSON.stringify({ r }))));
      const next = await h.reopen();
      expect((await next.timeline(fast)).map((r) => r.action)).toEqual(["one", "two", "three", "four"]);
      expect((await next.timeline(thinking)).map((r) => r.action)).toEqual(["other"]);
      expect(await next.contextReports(fast)).toEqual(["r1", "r2", "r3"].map((r) => JSON.stringify({ r })));
      expect(await next.contextReports(thinking)).toEqual([]);
    },
  },
  {
    group: JOURNAL,
    name: "a key is none, then started, then done with its result; a later started does not take the result back",
    async run(h) {
      const [fast] = twoConversations(h);
      const j = h.storage.journal(fast);
      expect(await j.state("k")).toEqual({ status: "none" });
      await j.started("k");
      expect(await j.state("k")).toEqual({ status: "started" });
      await j.done("k", "the result");
      expect(await j.state("k")).toEqual({ status: "done", result: "the result" });
      await j.started("k");
      expect(await j.state("k")).toEqual({ status: "done", result: "the result" });
      await j.started("o", { ordered: true });
      expect(await j.state("o")).toEqual({ status: "started" });
      expect(await j.state("other")).toEqual({ status: "none" });
    },
  },
  {
    group: JOURNAL,
    name: "across a reopen, a started key stays started and a done key keeps its result, per conversation",
    async run(h) {
      const [fast, thinking] = twoConversations(h);
      const j = h.storage.journal(fast);
      await j.started("started");
      await j.started("finished");
      await j.done("finished", "42");
      await j.started("ordered", { ordered: true });
      await h.storage.journal(thinking).started("theirs");
      const next = await h.reopen();
      const again = next.storage.journal(fast);
      expect(await again.state("started")).toEqual({ status: "started" });
      expect(await again.state("finished")).toEqual({ status: "done", result: "42" });
      expect(await again.state("ordered")).toEqual({ status: "started" });
      expect(await again.state("theirs")).toEqual({ status: "none" });
      expect(await next.storage.journal(thinking).state("theirs")).toEqual({ status: "started" });
      // And it goes on from there.
      await again.done("started", "late");
      const last = await next.reopen();
      expect(await last.storage.journal(fast).state("started")).toEqual({ status: "done", result: "late" });
    },
  },
  {
    group: JOURNAL,
    name: "started resolves only once durable; an ordered started and a done resolve while durability is held",
    needsHold: true,
    async run(h) {
      const [fast] = twoConversations(h);
      const j = h.storage.journal(fast);
      const release = h.holdDurability!();
      const started = j.started("effect");
      expect(await settlesWithin(started, A_WHILE), "started resolved before it was durable").toBe(false);
      expect(await settlesWithin(j.started("internal", { ordered: true }), SOON)).toBe(true);
      expect(await settlesWithin(j.done("internal", "ok"), SOON)).toBe(true);
      expect(await j.state("internal")).toEqual({ status: "done", result: "ok" });
      release();
      await started;
      expect(await j.state("effect")).toEqual({ status: "started" });
    },
  },
  {
    group: JOURNAL,
    name: "after a crash, a key whose started resolved is still started, and a durable done keeps its result",
    async run(h) {
      const [fast] = twoConversations(h);
      const j = h.storage.journal(fast);
      await j.started("effect");
      await j.started("finished");
      await j.done("finished", "r");
      await durabilityOf(h.storage, fast).whenDurable();
      const next = await h.crash();
      const again = next.storage.journal(fast);
      expect(await again.state("effect")).toEqual({ status: "started" });
      expect(await again.state("finished")).toEqual({ status: "done", result: "r" });
    },
  },
  {
    group: REOPEN,
    name: "a reopen keeps every change made, durable or not, and the storage goes on from there",
    async run(h) {
      const [fast, thinking] = twoConversations(h);
      const files = h.storage.conversations;
      await changes(h, fast, "a");
      const agent = await files.createAgent(fast, { role_id: "dev", role_name: "Dev" });
      await files.updateAgentMetadata(fast, agent.agent_id, (m) => ({ ...m, status: "waiting" }));
      await files.updateAgentMessages(fast, agent.agent_id, (f) => ({ ...f, messages: [message("agent says")] }));
      await changes(h, thinking, "t");
      const next = await h.reopen();
      await expectChanges(next, fast, ["a"]);
      await expectChanges(next, thinking, ["t"]);
      const again = next.storage.conversations;
      expect(await again.get(fast)).toMatchObject({ agent_ids: [agent.agent_id], agent_count: 1 });
      expect((await again.readAgentMetadata(fast, agent.agent_id)).status).toBe("waiting");
      expect((await again.readAgentMessages(fast, agent.agent_id)).messages.map((m) => m.content)).toEqual(["agent says"]);
      await changes(next, fast, "b");
      await durabilityOf(next.storage, fast).whenDurable();
      await expectChanges(await next.reopen(), fast, ["a", "b"]);
    },
  },
  {
    group: REOPEN,
    name: "a crash keeps every change that was durable",
    async run(h) {
      const [fast, thinking] = twoConversations(h);
      const files = h.storage.conversations;
      await changes(h, fast, "a");
      await changes(h, fast, "b");
      const agent = await files.createAgent(fast, { role_id: "dev", role_name: "Dev" });
      await files.updateAgentMessages(fast, agent.agent_id, (f) => ({ ...f, messages: [message("agent says")] }));
      await changes(h, thinking, "t");
      await durabilityOf(h.storage, fast).whenDurable();
      await durabilityOf(h.storage, thinking).whenDurable();
      const next = await h.crash();
      await expectChanges(next, fast, ["a", "b"]);
      await expectChanges(next, thinking, ["t"]);
      expect(await next.storage.conversations.get(fast)).toMatchObject({ agent_ids: [agent.agent_id] });
      expect((await next.storage.conversations.readAgentMessages(fast, agent.agent_id)).messages.map((m) => m.content)).toEqual(["agent says"]);
    },
  },
  {
    group: REOPEN,
    name: "a crash while durability is held keeps what was durable before it",
    needsHold: true,
    async run(h) {
      const [fast] = twoConversations(h);
      await changes(h, fast, "kept");
      await durabilityOf(h.storage, fast).whenDurable();
      h.holdDurability!();
      await changes(h, fast, "maybe");
      const next = await h.crash();
      const title = (await next.storage.conversations.get(fast)).title;
      const messages = (await next.storage.conversations.readLeaderMessages(fast)).messages.map((m) => m.content);
      // What was durable is there; what was not may be lost, or not.
      expect(["Title kept", "Title maybe"]).toContain(title);
      expect(messages.slice(0, 1)).toEqual(["kept"]);
      expect((await next.timeline(fast)).map((r) => r.action)[0]).toBe("action kept");
    },
  },
  {
    group: REOPEN,
    name: "an agent id is never handed out twice in its conversation: after a reopen, and after a crash past every agent it kept",
    async run(h) {
      const [fast, thinking] = twoConversations(h);
      const ids = [(await h.storage.conversations.createAgent(fast, { role_id: "dev", role_name: "Dev" })).agent_id];
      const reopened = await h.reopen();
      // Numbered within its conversation: the other one's first agent is 1 too.
      expect((await reopened.storage.conversations.createAgent(thinking, { role_id: "dev", role_name: "Dev" })).agent_id).toBe(1);
      ids.push((await reopened.storage.conversations.createAgent(fast, { role_id: "dev", role_name: "Dev" })).agent_id);
      // Created and not waited for: a crash may lose it; nothing durable then names its id.
      ids.push((await reopened.storage.conversations.createAgent(fast, { role_id: "dev", role_name: "Dev" })).agent_id);
      const crashed = await reopened.crash();
      expect(ids, `agent ids ${ids.join(", ")}`).toEqual([1, 2, 3]);
      // What the crash kept: agent 1 (made before the clean reopen) and, in order, what was durable.
      const kept = (await crashed.storage.conversations.listAgents(fast)).agents.map((a) => a.agent_id);
      expect(kept.length).toBeGreaterThanOrEqual(1);
      expect(kept).toEqual(ids.slice(0, kept.length));
      const next = (await crashed.storage.conversations.createAgent(fast, { role_id: "dev", role_name: "Dev" })).agent_id;
      expect(next, `agent ${next} after ${kept.join(", ")}`).toBe(Math.max(...kept) + 1);
    },
  },
];

/**
 * The conformance cases of a conversation's shared context in the engine's storage
 * (lib/runtime/team/ports.ts `ConversationFiles.readSharedContext` / `updateSharedContext`):
 * empty before the first change, changes one at a time in the order asked with none lost, an
 * invalid document refused, unknown conversations, and durability in order with the
 * conversation's other changes, across a reopen and a crash. Arbitration is not the storage's (it
 * is the mutator's, lib/shared-context/arbitrate.ts); the mutators here are plain. Only the port
 * and the harness are used.
 */
import { expect } from "vitest";
import { NotFoundError, ValidationError } from "@/lib/contracts/errors";
import type { SharedContextFile } from "@/lib/shared-context/schema";
import { durabilityOf, settlesWithin, twoConversations, UNKNOWN_CONVERSATION, A_WHILE, type StorageCase } from "./storage-contract";

const SHARED = "shared context";

/** A mutator that appends `line` to the entry `key` (made at version 1), after `ms` milliseconds (so a later call could overtake it). */
function appendTo(key: string, line: string, ms = 0) {
  return async (doc: SharedContextFile): Promise<SharedContextFile> => {
    if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
    const old = doc.entries[key];
    const value = old ? `${old.value}\n${line}` : line;
    const entry = { key, value, version: (old?.version ?? 0) + 1, author: "tester", author_role: "agent" as const, updated_at: "2026-07-11T10:00:00.000Z", requested_at: "2026-07-11T10:00:00.000Z" };
    return { ...doc, entries: { ...doc.entries, [key]: entry } };
  };
}

export const SHARED_CONTEXT_CASES: StorageCase[] = [
  {
    group: SHARED,
    name: "a conversation's shared context is empty before its first change, and a change reads back, in the other conversation too untouched",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      expect(await files.readSharedContext(fast)).toEqual({ version: 1, entries: {}, pending: [], history: [] });
      const stored = await files.updateSharedContext(fast, appendTo("plan", "step 1"));
      expect(stored.entries.plan).toMatchObject({ value: "step 1", version: 1 });
      expect((await files.readSharedContext(fast)).entries.plan).toMatchObject({ value: "step 1", version: 1 });
      expect((await files.readSharedContext(thinking)).entries).toEqual({});
    },
  },
  {
    group: SHARED,
    name: "changes apply one at a time in the order asked: twenty concurrent mutators, the early ones slow, each sees the one before, none is lost",
    async run(h) {
      const files = h.storage.conversations;
      const [fast] = twoConversations(h);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => files.updateSharedContext(fast, appendTo("log", `line ${i}`, i < 5 ? 20 - i * 4 : 0))));
      const expected = Array.from({ length: 20 }, (_, i) => `line ${i}`);
      expect(results.map((r) => r.entries.log!.version)).toEqual(expected.map((_, i) => i + 1));
      const log = (await files.readSharedContext(fast)).entries.log!;
      expect(log.value.split("\n")).toEqual(expected);
      expect(log.version).toBe(20);
    },
  },
  {
    group: SHARED,
    name: "a change that would make the document invalid rejects with ValidationError and changes nothing; later changes go on",
    async run(h) {
      const files = h.storage.conversations;
      const [fast] = twoConversations(h);
      await files.updateSharedContext(fast, appendTo("plan", "kept"));
      await expect(files.updateSharedContext(fast, (doc) => ({ ...doc, entries: { plan: { ...doc.entries.plan!, version: -1 } } }))).rejects.toBeInstanceOf(ValidationError);
      await expect(files.updateSharedContext(fast, (doc) => ({ ...doc, version: 2 }) as unknown as SharedContextFile)).rejects.toBeInstanceOf(ValidationError);
      expect((await files.readSharedContext(fast)).entries.plan).toMatchObject({ value: "kept", version: 1 });
      await files.updateSharedContext(fast, appendTo("plan", "after"));
      expect((await files.readSharedContext(fast)).entries.plan).toMatchObject({ value: "kept\nafter", version: 2 });
    },
  },
  {
    group: SHARED,
    name: "an unknown conversation is NotFoundError and a malformed id ValidationError, for reads and changes",
    async run(h) {
      const files = h.storage.conversations;
      await expect(files.readSharedContext(UNKNOWN_CONVERSATION)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.updateSharedContext(UNKNOWN_CONVERSATION, appendTo("k", "v"))).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.readSharedContext("../etc")).rejects.toBeInstanceOf(ValidationError);
      await expect(files.updateSharedContext("conv_bad", appendTo("k", "v"))).rejects.toBeInstanceOf(ValidationError);
    },
  },
  {
    group: SHARED,
    name: "a change is kept by a reopen, and by a crash once the conversation's changes are durable, with the changes made before it",
    async run(h) {
      const [fast] = twoConversations(h);
      await h.storage.conversations.update(fast, { title: "Before the shared context" });
      await h.storage.conversations.updateSharedContext(fast, appendTo("plan", "one"));
      const reopened = await h.reopen();
      expect((await reopened.storage.conversations.readSharedContext(fast)).entries.plan).toMatchObject({ value: "one", version: 1 });
      await reopened.storage.conversations.updateSharedContext(fast, appendTo("plan", "two"));
      await durabilityOf(reopened.storage, fast).whenDurable();
      const crashed = await reopened.crash();
      expect((await crashed.storage.conversations.readSharedContext(fast)).entries.plan).toMatchObject({ value: "one\ntwo", version: 2 });
      expect((await crashed.storage.conversations.get(fast)).title).toBe("Before the shared context");
    },
  },
  {
    group: SHARED,
    name: "a shared-context change is never durable before the conversation's earlier changes: a crash that keeps it keeps them",
    needsHold: true,
    async run(h) {
      const [fast] = twoConversations(h);
      const release = h.holdDurability!();
      await h.storage.conversations.update(fast, { title: "Earlier change" });
      const change = h.storage.conversations.updateSharedContext(fast, appendTo("plan", "later change"));
      change.catch(() => undefined);
      // Whether or not the change resolved meanwhile, what a crash keeps must keep the order.
      await settlesWithin(change, A_WHILE);
      const crashed = await h.crash();
      release();
      const kept = (await crashed.storage.conversations.readSharedContext(fast)).entries.plan;
      if (kept) expect((await crashed.storage.conversations.get(fast)).title).toBe("Earlier change");
    },
  },
];

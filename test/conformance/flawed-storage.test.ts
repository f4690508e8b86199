/**
 * The storage suite can fail: each case is run against in-memory storages broken on purpose in
 * one way each (durable too early, later changes durable first, lost updates, a journal that
 * forgets, a crash that loses durable changes…) and must fail against the ones named for it.
 * The last test checks that every case of the suite is named by at least one flaw, so no case
 * of the contract passes whatever the storage does.
 */
import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "@/lib/contracts/errors";
import type { SharedContextFile } from "@/lib/shared-context/schema";
import type { JournalState } from "@/lib/contracts/journal";
import type { ConversationFiles, EffectJournal, EngineStorage } from "@/lib/runtime/team/ports";
import { newMemoryHarness, type MemoryBacking } from "@/test/support/memory-storage";
import { runStorageCase, STORAGE_CASES, type StorageCase, type StorageHarness } from "./engine-storage";

/** `s` with some members replaced. */
function storageWith(s: EngineStorage, o: { conversations?: Partial<ConversationFiles> } & Partial<Omit<EngineStorage, "conversations">>): EngineStorage {
  return {
    conversations: { ...s.conversations, ...o.conversations },
    appendTimeline: o.appendTimeline ?? ((c, r) => s.appendTimeline(c, r)),
    appendContextReport: o.appendContextReport ?? ((c, l) => s.appendContextReport(c, l)),
    journal: o.journal ?? ((c) => s.journal(c)),
    durability: o.durability ?? ((c) => s.durability(c)),
  };
}

/** A harness whose every storage (after a reopen or a crash too) is broken by `flaw`. */
function brokenStorage(h: StorageHarness, flaw: (s: EngineStorage, h: StorageHarness) => EngineStorage): StorageHarness {
  return { ...h, storage: flaw(h.storage, h), reopen: async () => brokenStorage(await h.reopen(), flaw), crash: async () => brokenStorage(await h.crash(), flaw) };
}

/** A journal that keeps its states in this object only (so a reopen forgets them), optionally letting a `started` overwrite a `done`. */
function forgetfulJournal(inner: EffectJournal, overwrite: boolean): EffectJournal {
  const states = new Map<string, JournalState>();
  return {
    state: async (key) => states.get(key) ?? (overwrite ? inner.state(key) : { status: "none" }),
    started: async (key, options) => {
      await inner.started(key, options);
      if (overwrite || states.get(key)?.status !== "done") states.set(key, { status: "started" });
    },
    done: async (key, result) => {
      await inner.done(key, result);
      states.set(key, { status: "done", result });
    },
  };
}

/** Puts the backing's conversations back as they were when it was made (a crash that loses durable changes). */
function snapshotOf(backing: MemoryBacking): () => void {
  const saved = structuredClone([...backing.conversations]);
  return () => {
    backing.conversations.clear();
    for (const [id, files] of structuredClone(saved)) backing.conversations.set(id, files);
  };
}

interface Flaw {
  name: string;
  /** Cases (by the start of their name) that must fail against it. */
  fails: string[];
  make(h: StorageHarness, backing: MemoryBacking): StorageHarness;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const FLAWS: Flaw[] = [
  {
    name: "reports every change durable at once",
    fails: ["while durability is held", "started resolves only once durable"],
    make: (h) => brokenStorage(h, (s) => storageWith(s, { durability: () => ({ durableMark: 1, isDurable: () => true, whenDurable: async () => undefined }), journal: (c) => ({ ...s.journal(c), started: (k) => s.journal(c).started(k, { ordered: true }) }) })),
  },
  {
    name: "reports the newest change durable before the earlier ones",
    fails: ["marks grow with the changes", "a later change is never durable"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          durability: (c) => {
            const d = s.durability(c)!;
            return { get durableMark() { return d.durableMark; }, isDurable: (m) => m === d.durableMark || d.isDurable(m), whenDurable: (m) => (m === d.durableMark ? Promise.resolve() : d.whenDurable(m)) };
          },
        }),
      ),
  },
  {
    name: "reads, waits for the mutator and writes, without a queue (lost updates)",
    fails: ["changes of one file are applied one at a time"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            updateLeaderMessages: async (id, fn, opts) => {
              const next = await fn(await s.conversations.readLeaderMessages(id));
              return s.conversations.updateLeaderMessages(id, () => next, opts);
            },
          },
        }),
      ),
  },
  {
    name: "answers reads from a cache filled by the first read",
    fails: ["a change is seen by the next read", "updated_at becomes now"],
    make: (h) =>
      brokenStorage(h, (s) => {
        const cache = new Map<string, ReturnType<ConversationFiles["get"]>>();
        return storageWith(s, { conversations: { get: (id) => cache.get(id) ?? (cache.set(id, s.conversations.get(id)), cache.get(id)!) } });
      }),
  },
  {
    name: "throws plain errors for unknown conversations and agents",
    fails: ["rejects an unknown conversation", "rejects an unknown agent"],
    make: (h) =>
      brokenStorage(h, (s) => {
        const plain = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => (...args: A) => fn(...args).catch((e: unknown) => Promise.reject(e instanceof NotFoundError ? new Error(e.message) : e));
        const c = s.conversations;
        return storageWith(s, { conversations: { get: plain(c.get), createAgent: plain(c.createAgent), readAgentMetadata: plain(c.readAgentMetadata), updateAgentMetadata: plain(c.updateAgentMetadata) } });
      }),
  },
  {
    name: "applies a patch without checking it, and keeps the leader's old title",
    fails: ["refuses a bad patch", "holds the seeded conversations", "a change is seen by the next read"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            update: (id, patch) => s.conversations.update(id, typeof patch === "function" ? patch : (m) => ({ ...m, ...patch })),
            readLeaderMessages: async (id) => ({ ...(await s.conversations.readLeaderMessages(id)), title: "stale" }),
          },
        }),
      ),
  },
  {
    name: "turns a failed mutator into a note in the transcript",
    fails: ["a mutator that fails changes nothing"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            updateLeaderMessages: (id, fn, opts) =>
              s.conversations.updateLeaderMessages(id, async (f) => {
                try {
                  return await fn(f);
                } catch {
                  return { ...f, messages: [...f.messages, { role: "system", content: "the change failed" }] };
                }
              }, opts),
          },
        }),
      ),
  },
  {
    name: "ignores `touch: false`",
    fails: ["updated_at becomes now"],
    make: (h) => brokenStorage(h, (s) => storageWith(s, { conversations: { updateLeaderMessages: (id, fn) => s.conversations.updateLeaderMessages(id, fn) } })),
  },
  {
    name: "answers a change with what the mutator made, not what was stored",
    fails: ["a change cannot move a file's ids"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            updateLeaderMessages: async (id, fn, opts) => {
              let made: Awaited<ReturnType<typeof fn>> | undefined;
              await s.conversations.updateLeaderMessages(id, async (f) => (made = await fn(f)), opts);
              return made!;
            },
          },
        }),
      ),
  },
  {
    name: "finds an agent in any conversation",
    fails: ["rejects an unknown agent"],
    make: (h) =>
      brokenStorage(h, (s, hh) =>
        storageWith(s, {
          conversations: {
            readAgentMetadata: async (convId, agentId) => {
              for (const id of [convId, ...hh.conversationIds]) {
                const found = await s.conversations.readAgentMetadata(id, agentId).catch(() => null);
                if (found) return found;
              }
              throw new NotFoundError("no such agent");
            },
          },
        }),
      ),
  },
  {
    name: "gives an agent a model of its own, and any role a name",
    fails: ["takes ids 1, 2, 3…", "refuses a blank role"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, { conversations: { createAgent: (c, input) => s.conversations.createAgent(c, { ...input, role_id: input.role_id.trim() || "anonymous", model_key: input.model_key ?? "default-model" }) } }),
      ),
  },
  {
    name: "lists a new agent on its conversation from a read made before it was created",
    fails: ["agents created at once get distinct ids"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            createAgent: async (convId, input) => {
              const before = await s.conversations.get(convId);
              const agent = await s.conversations.createAgent(convId, input);
              await delay(5);
              const ids = [...before.agent_ids, agent.agent_id];
              await s.conversations.update(convId, { agent_ids: ids, agent_count: ids.length });
              return agent;
            },
          },
        }),
      ),
  },
  {
    name: "drops context reports",
    fails: ["timeline records and context reports"],
    make: (h) => brokenStorage(h, (s) => storageWith(s, { appendContextReport: async () => undefined })),
  },
  {
    name: "lets a later started take a done back",
    fails: ["a key is none, then started"],
    make: (h) => brokenStorage(h, (s) => storageWith(s, { journal: (c) => forgetfulJournal(s.journal(c), true) })),
  },
  {
    name: "keeps the journal in memory only",
    fails: ["across a reopen, a started key", "after a crash, a key whose started"],
    make: (h) => brokenStorage(h, (s) => storageWith(s, { journal: (c) => forgetfulJournal(s.journal(c), false) })),
  },
  {
    name: "reopens as a crash (a clean stop loses what was not durable yet)",
    fails: ["a reopen keeps every change"],
    make: (h) => {
      const crashing = (x: StorageHarness): StorageHarness => ({ ...x, reopen: async () => crashing(await x.crash()), crash: async () => crashing(await x.crash()) });
      return crashing(h);
    },
  },
  {
    name: "loses durable changes in a crash",
    fails: ["a crash keeps every change", "a crash while durability is held", "after a crash, a key whose started"],
    make: (h, backing) => {
      const restore = snapshotOf(backing);
      const losing = (x: StorageHarness): StorageHarness => ({
        ...x,
        reopen: async () => losing(await x.reopen()),
        crash: async () => {
          restore();
          return losing(await x.crash());
        },
      });
      return losing(h);
    },
  },
  {
    name: "keeps one shared context for every conversation",
    fails: ["a conversation's shared context is empty before its first change"],
    make: (h) =>
      brokenStorage(h, (s, hh) =>
        storageWith(s, {
          conversations: {
            readSharedContext: () => s.conversations.readSharedContext(hh.conversationIds[0]!),
            updateSharedContext: (_id, fn) => s.conversations.updateSharedContext(hh.conversationIds[0]!, fn),
          },
        }),
      ),
  },
  {
    name: "reads the shared context, waits for the mutator and writes, without a queue (lost updates)",
    fails: ["changes apply one at a time in the order asked"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            updateSharedContext: async (id, fn) => {
              const next = await fn(await s.conversations.readSharedContext(id));
              return s.conversations.updateSharedContext(id, () => next);
            },
          },
        }),
      ),
  },
  {
    name: "answers a refused shared-context change with the document as it was",
    fails: ["a change that would make the document invalid"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            updateSharedContext: (id, fn) => s.conversations.updateSharedContext(id, fn).catch(async (e: unknown) => (e instanceof ValidationError ? s.conversations.readSharedContext(id) : Promise.reject(e))),
          },
        }),
      ),
  },
  {
    name: "gives an unknown conversation an empty shared context",
    fails: ["an unknown conversation is NotFoundError"],
    make: (h) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            readSharedContext: (id) => s.conversations.readSharedContext(id).catch((e: unknown) => (e instanceof NotFoundError ? { version: 1 as const, entries: {}, pending: [], history: [] } : Promise.reject(e))),
          },
        }),
      ),
  },
  {
    name: "keeps the shared context in the storage object only (a reopen forgets it)",
    fails: ["a change is kept by a reopen"],
    make: (h) =>
      brokenStorage(h, (s) => {
        const docs = new Map<string, SharedContextFile>();
        return storageWith(s, {
          conversations: {
            readSharedContext: async (id) => docs.get(id) ?? s.conversations.readSharedContext(id),
            updateSharedContext: async (id, fn) => {
              const next = await fn(docs.get(id) ?? (await s.conversations.readSharedContext(id)));
              docs.set(id, next);
              return next;
            },
          },
        });
      }),
  },
  {
    name: "makes a shared-context change durable at once, ahead of the changes made before it",
    fails: ["a shared-context change is never durable before"],
    make: (h, backing) =>
      brokenStorage(h, (s) =>
        storageWith(s, {
          conversations: {
            updateSharedContext: async (id, fn) => {
              const next = await s.conversations.updateSharedContext(id, fn);
              backing.conversations.get(id)!.sharedContext = structuredClone(next);
              return next;
            },
          },
        }),
      ),
  },
  {
    name: "numbers agents across conversations (one counter for the data folder)",
    fails: ["takes ids 1, 2, 3… within each conversation", "agents created at once get distinct ids", "an agent id is never handed out twice"],
    make: (h, backing) => {
      let last = 0;
      backing.numberAgent = () => ++last;
      return h;
    },
  },
  {
    name: "numbers a conversation's agents from a count kept in memory only (a reopen starts again at 1)",
    fails: ["an agent id is never handed out twice"],
    make: (h, backing) => {
      let counts = new Map<string, number>();
      backing.numberAgent = (files) => {
        const n = (counts.get(files.meta.id) ?? 0) + 1;
        counts.set(files.meta.id, n);
        return n;
      };
      const forgetting = (x: StorageHarness): StorageHarness => ({
        ...x,
        reopen: async () => ((counts = new Map()), forgetting(await x.reopen())),
        crash: async () => ((counts = new Map()), forgetting(await x.crash())),
      });
      return forgetting(h);
    },
  },
];

function casesOf(flaw: Flaw): StorageCase[] {
  return flaw.fails.map((start) => {
    const found = STORAGE_CASES.filter((c) => c.name.startsWith(start));
    if (found.length !== 1) throw new Error(`"${start}" names ${found.length} cases`);
    return found[0]!;
  });
}

describe("the storage suite fails against a broken storage", () => {
  for (const flaw of FLAWS) {
    describe(flaw.name, () => {
      for (const c of casesOf(flaw)) {
        it(`fails: ${c.name}`, async () => {
          const create = async () => {
            const { harness, backing } = newMemoryHarness();
            return flaw.make(harness, backing);
          };
          const factory = { canHoldDurability: true, create };
          await expect(runStorageCase(factory, c)).rejects.toThrow();
        });
      }
    });
  }

  it("names every case of the suite under at least one flaw", () => {
    const named = new Set(FLAWS.flatMap(casesOf));
    expect(STORAGE_CASES.filter((c) => !named.has(c)).map((c) => c.name)).toEqual([]);
  });
});

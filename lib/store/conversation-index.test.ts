import { describe, expect, it } from "vitest";
import { ConversationIndex, indexEntryOf, listItemOf, reconcileIndex, type IndexQuery } from "./conversation-index";
import type { ConversationMetadata } from "@/lib/contracts/on-disk";
import { compareConversationIds } from "./time";

function meta(id: string, over: Partial<ConversationMetadata> = {}): ConversationMetadata {
  return {
    id,
    title: `Title of ${id}`,
    created_at: "2026-07-11T21:00:00",
    updated_at: "2026-07-11T21:00:00",
    project_path: "/work/project",
    model_key: "m",
    thinking_mode: false,
    run_mode: "fast",
    status: "active",
    agent_count: 0,
    agent_ids: [],
    phase: "IDLE",
    ...over,
  };
}

const id = (n: number) => `conv_20260711_2100${String(n % 60).padStart(2, "0")}_${String(n).padStart(3, "0")}`;

/** The list as the store computed it before the index: filter, sort, slice, over every conversation. */
function naive(all: Iterable<ConversationMetadata>, { q, status, offset, limit }: IndexQuery) {
  const needle = q?.toLowerCase();
  const matching = [...all]
    .filter((c) => status === "all" || c.status === status)
    .filter((c) => !needle || c.title.toLowerCase().includes(needle) || c.project_path.toLowerCase().includes(needle))
    .sort((a, b) => (a.updated_at !== b.updated_at ? (a.updated_at < b.updated_at ? 1 : -1) : compareConversationIds(b.id, a.id)));
  return { items: matching.slice(offset, offset + limit).map(listItemOf), total: matching.length };
}

describe("ConversationIndex", () => {
  it("answers every query as filtering and sorting all conversations would, through 2,000 random changes", () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
    const titles = ["Design the Frontend", "后端 API 设计", "frontend review", "Release notes", "多智能体", "ÜBER Title"];
    const paths = ["/work/Alpha", "/work/beta", "/home/me/项目", "/srv/frontend"];
    // Few distinct times, so many ties are broken by id (numbers past 999 included).
    const times = ["2026-07-11T21:00:00", "2026-07-11T21:00:01", "2026-07-12T08:00:00", "2026-07-10T23:59:59"];
    const queries = ["", "front", "FRONT", "设计", "alpha", "/work", "über", "notes", "nothing"];

    const index = new ConversationIndex();
    const model = new Map<string, ConversationMetadata>();
    index.load([], new Map());
    for (let step = 0; step < 2000; step++) {
      const convId = id(Math.floor(rand() * 1200));
      if (rand() < 0.15) {
        index.remove(convId);
        model.delete(convId);
      } else {
        const m = meta(convId, {
          title: pick(titles),
          project_path: pick(paths),
          updated_at: pick(times),
          status: rand() < 0.3 ? "archived" : "active",
          agent_count: Math.floor(rand() * 4),
        });
        index.put(m);
        model.set(convId, m);
      }
      if (step % 10 === 0) {
        const query: IndexQuery = {
          q: pick(queries) || undefined,
          status: pick(["active", "archived", "all"] as const),
          offset: pick([0, 0, 1, 5, 40, 500]),
          limit: pick([1, 3, 20, 100]),
        };
        expect(index.query(query), JSON.stringify({ step, query })).toEqual(naive(model.values(), query));
      }
    }
    expect(index.size).toBe(model.size);
    expect(Object.keys(index.toIndexFile()).sort()).toEqual([...model.keys()].sort());
  });

  it("pages without a search stop early yet report the full total per status", () => {
    const index = new ConversationIndex();
    const metas = Array.from({ length: 50 }, (_, i) =>
      meta(id(i + 1), { status: i % 5 === 0 ? "archived" : "active", updated_at: `2026-07-11T21:${String(i).padStart(2, "0")}:00` }),
    );
    index.load(metas, new Map());
    expect(index.query({ status: "active", offset: 0, limit: 2 })).toEqual(naive(metas, { status: "active", offset: 0, limit: 2 }));
    expect(index.query({ status: "archived", offset: 9, limit: 5 })).toEqual({ items: [listItemOf(metas[0]!)], total: 10 });
    expect(index.query({ status: "all", offset: 48, limit: 5 }).items.map((i) => i.id)).toEqual([id(2), id(1)]);
  });

  it("hands out copies: changing a returned item does not change the index", () => {
    const index = new ConversationIndex();
    index.load([meta(id(1))], new Map());
    const [item] = index.query({ status: "all", offset: 0, limit: 1 }).items;
    item!.title = "changed";
    expect(index.query({ status: "all", offset: 0, limit: 1 }).items[0]?.title).toBe("Title of " + id(1));
  });

  it("keeps index.json's entries in file order with their extra fields, new ones at the end", () => {
    const index = new ConversationIndex();
    const a = meta(id(1));
    const b = meta(id(2));
    index.load([a, b], new Map([[b.id, { ...indexEntryOf(b), pinned: true }], [a.id, indexEntryOf(a)]]));
    index.put({ ...b, title: "B2", agent_count: 2 });
    index.put(meta(id(3)));
    index.remove(a.id);
    const file = index.toIndexFile();
    expect(Object.keys(file)).toEqual([b.id, id(3)]);
    expect(file[b.id]).toEqual({ title: "B2", created_at: b.created_at, updated_at: b.updated_at, agent_count: 2, pinned: true });
  });
});

describe("ConversationIndex.put says whether index.json must be rewritten", () => {
  it("true for a new conversation and for another title, time or agent count; false when the entry stays the same", () => {
    const index = new ConversationIndex();
    const a = meta(id(1));
    index.load([a], new Map([[a.id, indexEntryOf(a)]]));
    expect(index.put(meta(id(2)))).toBe(true);
    // Fields index.json does not hold: the list row changes, the file does not.
    expect(index.put({ ...a, status: "archived", phase: "CLOSED", model_key: "other" })).toBe(false);
    expect(index.query({ status: "archived", offset: 0, limit: 5 }).items.map((i) => i.id)).toEqual([a.id]);
    // A touch within the same second (times have whole seconds).
    expect(index.put({ ...a, status: "archived", updated_at: a.updated_at })).toBe(false);
    expect(index.put({ ...a, updated_at: "2026-07-11T21:00:01" })).toBe(true);
    expect(index.put({ ...a, updated_at: "2026-07-11T21:00:01", title: "renamed" })).toBe(true);
    expect(index.put({ ...a, updated_at: "2026-07-11T21:00:01", title: "renamed", agent_count: 1 })).toBe(true);
    expect(index.put({ ...a, updated_at: "2026-07-11T21:00:01", title: "renamed", agent_count: 1, created_at: "2026-07-11T20:00:00" })).toBe(true);
    expect(index.put({ ...a, updated_at: "2026-07-11T21:00:01", title: "renamed", agent_count: 1, created_at: "2026-07-11T20:00:00" })).toBe(false);
  });
});

describe("reconcileIndex", () => {
  const a = meta(id(3), { title: "A" });
  const b = meta(id(1), { title: "B" });
  const c = meta(id(2), { title: "C" });

  it("rebuilds a missing index from the metadata, ordered by id", () => {
    const r = reconcileIndex(null, [a, b, c], new Set());
    expect([...r.entries.keys()]).toEqual([b.id, c.id, a.id]);
    expect(r.entries.get(a.id)).toEqual({ title: "A", created_at: a.created_at, updated_at: a.updated_at, agent_count: 0 });
    expect(r).toMatchObject({ added: [b.id, c.id, a.id], removed: [], changed: [] });
  });

  it("finds nothing to do when index.json matches, extra fields and order included", () => {
    const file = { [a.id]: { ...indexEntryOf(a), note: "x" }, [b.id]: indexEntryOf(b) };
    const r = reconcileIndex(file, [b, a], new Set());
    expect(r).toMatchObject({ added: [], removed: [], changed: [] });
    expect(Object.fromEntries(r.entries)).toEqual(file);
    expect([...r.entries.keys()]).toEqual([a.id, b.id]);
  });

  it("names what is out of step and keeps the entries of conversations it cannot read", () => {
    const gone = id(9);
    const broken = id(8);
    const file = {
      [gone]: indexEntryOf(meta(gone)),
      [a.id]: { ...indexEntryOf(a), title: "An old title", agent_count: 5, note: "kept" },
      [broken]: indexEntryOf(meta(broken, { title: "Broken now" })),
    };
    const r = reconcileIndex(file, [a, c], new Set([broken]));
    expect(r).toMatchObject({ added: [c.id], removed: [gone], changed: [a.id] });
    expect([...r.entries.keys()]).toEqual([a.id, broken, c.id]);
    expect(r.entries.get(a.id)).toEqual({ ...indexEntryOf(a), note: "kept" });
    expect(r.entries.get(broken)?.title).toBe("Broken now");
  });
});

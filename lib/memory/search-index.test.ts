import { describe, expect, it } from "vitest";
import { IndexFileSchema, MemoryIndex, searchTokens, textHash } from "./search-index";
import type { MemoryEntry } from "./schema";

function entry(id: string, statement: string, subject = ""): MemoryEntry {
  return { id, kind: "fact", statement, subject, project_path: null, level: "public", grant: [], source: { conversation_id: null, message_ids: [] }, created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z", confidence: 1, history: [], redactions: [], author: "person" };
}

describe("the memory search index", () => {
  it("cuts Chinese into characters and drops stop words", () => {
    expect(searchTokens("The 订单接口 is deprecated")).toEqual(["订", "单", "接", "口", "deprecated"]);
    expect(searchTokens("支付的回调")).toEqual(["支", "付", "回", "调"]);
    // full-width letters are ASCII ones; Korean syllables are words of their own, as CJK characters
    expect(searchTokens("ＡＰＩ 테스트를")).toEqual(["api", "테", "스", "트", "를"]);
  });

  it("ranks by BM25 over statement and subject, any query word matching", () => {
    const index = MemoryIndex.build([entry("mem_aaaa1", "Redis holds the session cache", "sessions"), entry("mem_aaaa2", "支付回调测试还没有覆盖并发", "回调测试"), entry("mem_aaaa3", "The build runs nightly", "build")], null);
    expect(index.query("session cache size", { limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_aaaa1"]);
    expect(index.query("回调并发", { limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_aaaa2"]);
    expect(index.query("nightly sessions", { limit: 5 }).total).toBe(2);
  });

  it("replaces and deletes entries", () => {
    const index = MemoryIndex.build([entry("mem_bbbb1", "old words here")], null);
    index.put(entry("mem_bbbb1", "fresh statement"));
    expect(index.size).toBe(1);
    expect(index.query("old", { limit: 5 }).total).toBe(0);
    expect(index.query("fresh", { limit: 5 }).total).toBe(1);
    index.delete("mem_bbbb1");
    expect(index.size).toBe(0);
  });

  it("saves and restores, vectors included, and lists entries without a vector", () => {
    const vectors = new Map([["mem_cccc1", [1, 0]]]);
    const entries = [entry("mem_cccc1", "alpha beta"), entry("mem_cccc2", "gamma beta")];
    const index = MemoryIndex.build(entries, { key: "emb", dims: 2 }, vectors);
    expect([...index.missingVectors]).toEqual(["mem_cccc2"]);
    // a search leaves the stored vectors in place
    index.query("alpha", { vector: [1, 0], limit: 5 });
    const file = JSON.parse(JSON.stringify(index.toFile("sha")));
    expect(IndexFileSchema.parse(file).entries_sha256).toBe("sha");
    const restored = MemoryIndex.restore(IndexFileSchema.parse(file), entries);
    expect(restored.size).toBe(2);
    expect([...restored.missingVectors]).toEqual(["mem_cccc2"]);
    expect(restored.query("gamma", { limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_cccc2"]);
    expect(restored.query("zzz", { vector: [1, 0.1], limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_cccc1"]);
    // a vector made from another text of the entry is not used
    const edited = MemoryIndex.restore(IndexFileSchema.parse(file), [entry("mem_cccc1", "alpha edited"), entries[1]!]);
    expect([...edited.missingVectors].sort()).toEqual(["mem_cccc1", "mem_cccc2"]);
    const saved = MemoryIndex.savedVectors(file);
    expect(saved.get("mem_cccc1")).toEqual({ hash: textHash("alpha beta"), vector: [1, 0] });
    expect(saved.has("mem_cccc2")).toBe(false);
    expect(MemoryIndex.savedVectors({ nonsense: true }).size).toBe(0);
  });

  it("reuses the vectors of an index saved by Orama (layout 1), so a start after the change embeds nothing again", () => {
    const hash = textHash("alpha beta");
    const legacy = {
      version: 1,
      entries_sha256: "sha",
      embedding: { key: "emb", dims: 2 },
      orama: { docs: { docs: { "1": { id: "mem_eeee1", text: "alpha beta", hash, embedding: [1, 0] }, "2": { id: "mem_eeee2", text: "gamma", hash: textHash("gamma") } } } },
    };
    expect(IndexFileSchema.safeParse(legacy).success).toBe(false);
    expect([...MemoryIndex.savedVectors(legacy)]).toEqual([["mem_eeee1", { hash, vector: [1, 0] }]]);
  });

  it("mixes scores as lexical 0.6 and vector 0.4, each divided by its best hit", () => {
    const vectors = new Map([
      ["mem_ffff1", [1, 0]],
      ["mem_ffff2", [0.6, 0.8]],
      ["mem_ffff3", [0, 1]],
    ]);
    const index = MemoryIndex.build([entry("mem_ffff1", "redis cache"), entry("mem_ffff2", "redis"), entry("mem_ffff3", "fridays")], { key: "emb", dims: 2 }, vectors);
    const { hits, total } = index.query("cache", { vector: [1, 0], limit: 5 });
    // mem_ffff1: best lexical (0.6) and best vector (0.4); mem_ffff2: cosine 0.6 of the best 1 (0.24); mem_ffff3: below 0.5
    expect(total).toBe(2);
    expect(hits.map((h) => [h.id, Math.round(h.score * 100) / 100])).toEqual([
      ["mem_ffff1", 1],
      ["mem_ffff2", 0.24],
    ]);
    expect(index.query("cache", { vector: [1, 0], offset: 1, limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_ffff2"]);
  });

  it("mixes in vector similarity: an entry with no word in common is found by its vector", () => {
    const vectors = new Map([
      ["mem_dddd1", [1, 0]],
      ["mem_dddd2", [0, 1]],
    ]);
    const index = MemoryIndex.build([entry("mem_dddd1", "Redis holds sessions"), entry("mem_dddd2", "Releases ship on Fridays")], { key: "emb", dims: 2 }, vectors);
    expect(index.query("缓存", { limit: 5 }).total).toBe(0);
    expect(index.query("缓存", { vector: [0.99, 0.05], limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_dddd1"]);
    // a vector of another width is ignored rather than failing
    expect(index.query("Fridays", { vector: [1, 0, 0], limit: 5 }).hits.map((h) => h.id)).toEqual(["mem_dddd2"]);
  });
});

/**
 * The memory service's embedding path against the fake OpenAI-compatible server's
 * `/v1/embeddings`, chosen the way the server chooses it: the `embedding` key of models.json
 * through `embedderFor`. Vectors are made at write time and kept in the index; an endpoint that
 * fails never fails a write, and recall falls back to BM25 with a notice.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FileQueues } from "@/lib/store/atomic";
import { fakeError, startFakeOpenAI, type FakeOpenAI } from "@/test/helpers/fake-openai";
import { fakeEmbedding } from "@/test/helpers/fake-embeddings";
import { indexPath } from "./memory-files";
import { MemoryService } from "./service";
import type { MemoryCandidate } from "./schema";
import { ModelRegistry } from "@/lib/models/model-registry";
import { createOfflineModel } from "@/lib/offline-model";

/** The embedder as the composition root makes it: the `embedding` key of models.json. */
const models = new ModelRegistry({ offline: createOfflineModel });

let fake: FakeOpenAI;
let failing = false;
let root: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({ embed: (text) => (failing ? fakeError(500) : fakeEmbedding(text)) });
});
afterAll(async () => {
  await fake?.close();
});
beforeEach(async () => {
  failing = false;
  fake.reset();
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-mem-emb-"));
  await fs.writeFile(
    path.join(root, "models.json"),
    JSON.stringify({ default: "offline", embedding: "emb", models: { offline: { provider: "offline", model: "astrion-offline" }, emb: { base_url: fake.url, model: "fake-embedding" } } }),
  );
});

const reader = { project_path: null, role_id: "leader" };
const cand = (statement: string, subject: string): MemoryCandidate => ({ kind: "fact", statement, subject, project_path: null, level: "public", grant: [], source: { conversation_id: null, message_ids: [] }, confidence: 0.9 });
const embedCalls = () => fake.requests.filter((r) => /\/embeddings$/.test(r.path));

describe("memory with the embedding key of models.json", () => {
  it("embeds each entry once at write time, stores 64-dim vectors in the index, embeds each query", async () => {
    const mem = new MemoryService(root, { queues: new FileQueues(), embedder: () => models.embedderFor(root) });
    await mem.upsert([cand("Redis holds the session cache", "sessions"), cand("订单接口已经废弃", "订单接口")]);
    expect(embedCalls()).toHaveLength(1);
    expect(embedCalls()[0]!.body?.input).toEqual(["sessions\nRedis holds the session cache", "订单接口\n订单接口已经废弃"]);
    const hits = await mem.recall({ text: "订单接口", reader });
    expect(hits[0]?.entry.statement).toBe("订单接口已经废弃");
    expect(embedCalls().at(-1)!.body?.input).toEqual(["订单接口"]);
    await mem.saveIndex();
    const saved = JSON.parse(await fs.readFile(indexPath(root), "utf8"));
    expect(saved.embedding).toEqual({ key: "emb", dims: 64 });
    const vectors = Object.values(saved.vectors) as Array<{ vector: number[] }>;
    expect(vectors.map((v) => v.vector.length)).toEqual([64, 64]);
    // a restart restores the saved index: nothing is embedded again
    fake.reset();
    const again = new MemoryService(root, { queues: new FileQueues(), embedder: () => models.embedderFor(root) });
    await again.ready();
    expect(embedCalls()).toHaveLength(0);
  });

  it("keeps writing when the endpoint fails, answers by BM25, and says so in its notices", async () => {
    const mem = new MemoryService(root, { queues: new FileQueues(), embedder: () => models.embedderFor(root) });
    await mem.upsert([cand("Redis holds the session cache", "sessions")]);
    failing = true;
    const { added } = await mem.upsert([cand("The nightly build runs at 2am", "nightly build")]);
    expect(added).toHaveLength(1);
    const hits = await mem.recall({ text: "nightly build", reader });
    expect(hits[0]?.entry.id).toBe(added[0]!.id);
    expect(mem.notices().map((n) => n.message).join("\n")).toMatch(/embedding with model "emb" failed.*falls back to BM25/);
  });
});

/**
 * Memory recall over 10,000 entries (in this process; no server): the app's own index
 * (lib/memory/search-index.ts, MiniSearch) and ranking with the access filter (lib/memory/recall.ts +
 * canRead), loaded as they are. Entries are deterministic facts, preferences and open issues in
 * English and Chinese over 20 projects and all three levels; each query is ranked for a reader on
 * one project (role `leader`), limit 8.
 * - bm25: lexical only (no embedding model configured);
 * - hybrid: every entry with a 64-dimension vector from the fake endpoint's embedding
 *   (test/helpers/fake-embeddings.ts), each query embedded through the `openai` client against the
 *   fake OpenAI-compatible server on loopback (`/v1/embeddings`), then ranked (figures with and
 *   without that HTTP call);
 * - build: the index built from the 10,000 entries (what a start with a missing index does,
 *   vectors already known).
 */
import OpenAI from "openai";
import { stats } from "./lib.mjs";
import { importTsGraph } from "./ts-module.mjs";

const N = 10_000;
const SAMPLES = 200;
const WARMUP = 20;

const EN_SUBJECTS = ["payment service", "order API", "login flow", "session cache", "callback tests", "build pipeline", "answer style", "release process", "database schema", "rate limiter"];
const EN_VERBS = ["is deprecated", "needs a review", "uses PostgreSQL", "lacks concurrency tests", "runs nightly", "prefers concise answers", "times out after 30 seconds", "is owned by the platform team", "moved to version 2", "writes to Redis"];
const ZH_SUBJECTS = ["支付服务", "订单接口", "登录流程", "会话缓存", "回调测试", "构建流水线", "回答风格", "发布流程", "数据库结构", "限流器"];
const ZH_VERBS = ["已经废弃", "需要评审", "使用 PostgreSQL", "还没有覆盖并发场景", "每晚运行", "希望回答简洁并附代码示例", "30 秒后超时", "由平台组负责", "迁移到第二版", "写入 Redis"];
const KINDS = ["fact", "preference", "open_issue"];
const LEVELS = ["public", "project", "restricted"];
const QUERIES = ["is the order API deprecated", "session cache redis", "concurrency tests for callbacks", "who owns the build pipeline", "release process review", "订单接口废弃了吗", "回调测试并发", "会话缓存 Redis", "发布流程需要评审", "login flow timeout"];

function entry(i) {
  const zh = i % 3 === 0;
  const s = i % 10;
  const v = Math.floor(i / 10) % 10;
  const subject = `${zh ? ZH_SUBJECTS[s] : EN_SUBJECTS[s]} ${i % 97}`;
  const statement = `${zh ? ZH_SUBJECTS[s] : `The ${EN_SUBJECTS[s]}`} ${zh ? ZH_VERBS[v] : EN_VERBS[v]} (note ${i})`;
  const level = LEVELS[Math.floor(i / 3) % 3];
  const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
  return {
    id: `mem_bench${String(i).padStart(6, "0")}`,
    kind: KINDS[i % 3],
    statement,
    subject,
    project_path: `/projects/p${Math.floor(i / 7) % 20}`,
    level,
    grant: level === "restricted" ? (i % 2 ? ["leader"] : ["reviewer"]) : [],
    source: { conversation_id: null, message_ids: [] },
    created_at: at,
    updated_at: at,
    confidence: 0.8,
    history: [],
    redactions: [],
    author: "distiller",
  };
}

/** Times `fn` over the queries: warm-up, then SAMPLES calls. */
async function timeQueries(fn) {
  for (let i = 0; i < WARMUP; i++) await fn(QUERIES[i % QUERIES.length]);
  const samples = [];
  for (let i = 0; i < SAMPLES; i++) {
    const q = QUERIES[i % QUERIES.length];
    const t = performance.now();
    const hits = await fn(q);
    samples.push(performance.now() - t);
    if (hits.length === 0) throw new Error(`no hit for "${q}"`);
  }
  return stats(samples);
}

/** `{ memory_recall: {...} }`. */
export async function benchMemory() {
  console.error("[bench] memory: 10,000 entries, recall (BM25 and hybrid)…");
  const { mods, cleanup } = await importTsGraph(["lib/memory/search-index.ts", "lib/memory/recall.ts", "lib/memory/access.ts", "test/helpers/fake-openai.ts", "test/helpers/fake-embeddings.ts"]);
  const [{ MemoryIndex, indexedText }, { rankEntries }, { canRead }, { startFakeOpenAI }, { fakeEmbedding }] = mods;
  const entries = new Map();
  for (let i = 0; i < N; i++) {
    const e = entry(i);
    entries.set(e.id, e);
  }
  const reader = { project_path: "/projects/p3", role_id: "leader" };
  const keep = (e) => canRead(e, reader);
  const limit = 8;
  const result = { entries: N, queries: QUERIES.length, limit };
  try {
    let t = performance.now();
    const lexical = MemoryIndex.build([...entries.values()], null);
    result.build_bm25_ms = +(performance.now() - t).toFixed(1);
    result.bm25 = await timeQueries(async (q) => rankEntries(lexical, entries, q, null, keep, limit));

    const vectors = new Map([...entries.values()].map((e) => [e.id, fakeEmbedding(indexedText(e))]));
    t = performance.now();
    const hybrid = MemoryIndex.build([...entries.values()], { key: "fake", dims: vectors.values().next().value.length }, vectors);
    result.build_hybrid_ms = +(performance.now() - t).toFixed(1);
    result.hybrid_rank_only = await timeQueries(async (q) => rankEntries(hybrid, entries, q, fakeEmbedding(q), keep, limit));
    const fake = await startFakeOpenAI();
    try {
      const client = new OpenAI({ apiKey: "bench", baseURL: fake.url, maxRetries: 0 });
      result.hybrid_with_embedding_call = await timeQueries(async (q) => {
        const answer = await client.embeddings.create({ model: "fake-embedding", input: [q], encoding_format: "float" });
        return rankEntries(hybrid, entries, q, answer.data[0].embedding, keep, limit);
      });
    } finally {
      await fake.close();
    }
  } finally {
    cleanup();
  }
  return { memory_recall: result };
}

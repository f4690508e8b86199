/**
 * Knowledge retrieval (issue 11), in this process (no server): the knowledge service
 * (lib/knowledge/service.ts, the code the engine's `search_knowledge` runs) on
 * - a generated project of 3,000 files (test/helpers/projects.ts): a full build (files per
 *   second, and the event loop's longest delay meanwhile beside its delay over 2 s of idling just
 *   before, the machine's floor), a refresh with nothing changed and
 *   with one file changed, and the median of `search` over 40 queries × 5 rounds once indexed
 *   (no refresh in the timed calls: `refreshMs` is set past the run);
 * - the 50-question benchmark of bench/knowledge-questions.json over a real repository in
 *   node_modules: how often the answering file is among the files of the top 5 passages, with
 *   BM25 alone and with vectors from the fake OpenAI-compatible /v1/embeddings endpoint
 *   (test/helpers/fake-openai.ts, a hashed bag of words) through the app's embedding client.
 */
import { readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { ROOT, stats, tempDir } from "./lib.mjs";
import { importTsGraph } from "./ts-module.mjs";

const FILES = 3000;
const ROUNDS = 5;
const DOMAINS = ["billing", "invoices", "payments", "accounts", "auth", "sessions", "orders", "catalog"];
const PARTS = ["service", "repository", "controller", "validator", "mapper", "client", "cache", "queue"];

async function hitRate(svc, project, questions, embedder) {
  let hits = 0;
  for (const q of questions) {
    const a = await svc.search(project, q.question, { limit: 5, embedder });
    if (a.passages.some((p) => p.file === q.file)) hits++;
  }
  return +(hits / questions.length).toFixed(2);
}

export async function benchKnowledge() {
  const { mods, cleanup } = await importTsGraph(["lib/knowledge/service.ts", "lib/knowledge/config.ts", "lib/models/embeddings.ts", "test/helpers/projects.ts", "test/helpers/fake-openai.ts", "lib/store/atomic.ts", "lib/workspace/index.ts"], { allowServerOnly: true });
  const [{ KnowledgeService }, { DEFAULT_KNOWLEDGE_LIMITS }, { createEmbedder }, { generateProject, writeProject }, { startFakeOpenAI }, { FileQueues }, { ProtectedFolders, Workspace }] = mods;
  const limits = { ...DEFAULT_KNOWLEDGE_LIMITS, refreshMs: 3_600_000, waitMs: 600_000 };
  // What the composition root makes once per process; this bench is a process of its own (it protects no folder).
  const queues = new FileQueues();
  const parts = { queues, workspace: new Workspace({ protectedFolders: new ProtectedFolders(), queues }) };
  const data = tempDir("astrion-bench-knowledge-");
  const project = tempDir("astrion-bench-project-");
  let fake;
  try {
    const files = generateProject(FILES, 7);
    writeProject(project, files);
    const fileCount = Object.keys(files).length;
    process.stderr.write(`knowledge: indexing ${fileCount} files\n`);
    const svc = new KnowledgeService(data, limits, parts);
    // The floor: the same monitor over 2 s of doing nothing (on a loaded machine the OS alone delays the loop).
    const idle = monitorEventLoopDelay({ resolution: 5 });
    idle.enable();
    await new Promise((r) => setTimeout(r, 2000));
    idle.disable();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const t0 = performance.now();
    await svc.project(project).refresh();
    const buildMs = performance.now() - t0;
    loop.disable();
    const st = svc.project(project).status();

    const nochange = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await svc.project(project).refresh();
      nochange.push(performance.now() - t);
    }
    const changed = [];
    const one = path.join(project, "src/billing/service.ts");
    for (let i = 0; i < 5; i++) {
      writeFileSync(one, `${readFileSync(one, "utf8")}\n// edit ${i}\n`);
      const later = new Date(Date.now() + (i + 1) * 2000);
      utimesSync(one, later, later);
      const t = performance.now();
      const r = await svc.project(project).refresh();
      changed.push(performance.now() - t);
      if (r.reindexed.length !== 1) throw new Error(`one changed file re-indexed ${r.reindexed.length} files`);
    }

    const queries = [];
    for (const d of DOMAINS) for (const p of PARTS.slice(0, 5)) queries.push(`where is the ${d} ${p} defined and what does it validate`);
    const samples = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const q of queries) {
        const t = performance.now();
        await svc.search(project, q);
        samples.push(performance.now() - t);
      }
    }

    const bench = JSON.parse(readFileSync(path.join(ROOT, "bench", "knowledge-questions.json"), "utf8"));
    const pkg = path.join(ROOT, "node_modules", bench.package);
    const qsvc = new KnowledgeService(tempDir("astrion-bench-knowledge-q-"), limits, parts);
    await qsvc.project(pkg).refresh();
    const bm25 = await hitRate(qsvc, pkg, bench.questions, null);
    fake = await startFakeOpenAI();
    const embedder = createEmbedder("fake-embedding", { provider: "openai", base_url: fake.url, model: "fake-embedding" });
    const vsvc = new KnowledgeService(tempDir("astrion-bench-knowledge-v-"), limits, parts);
    await vsvc.project(pkg).refresh({ embedder });
    const withVectors = await hitRate(vsvc, pkg, bench.questions, embedder);

    return {
      knowledge: {
        project_files: st.files_indexed,
        passages: st.passages,
        build_ms: Math.round(buildMs),
        index_files_per_second: Math.round(st.files_indexed / (buildMs / 1000)),
        build_event_loop_delay_max_ms: +(loop.max / 1e6).toFixed(1),
        build_event_loop_delay_p99_ms: +(loop.percentile(99) / 1e6).toFixed(1),
        idle_event_loop_delay_max_ms: +(idle.max / 1e6).toFixed(1),
        idle_event_loop_delay_p99_ms: +(idle.percentile(99) / 1e6).toFixed(1),
        refresh_nothing_changed_ms: stats(nochange),
        refresh_one_file_changed_ms: stats(changed),
        search_ms: stats(samples),
        quality: {
          repository: `node_modules/${bench.package}@${bench.version}`,
          indexed_files: qsvc.project(pkg).status().files_indexed,
          questions: bench.questions.length,
          top5_hit_rate_bm25: bm25,
          top5_hit_rate_bm25_plus_fake_embeddings: withVectors,
        },
      },
    };
  } finally {
    await fake?.close();
    cleanup();
    rmSync(data, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}

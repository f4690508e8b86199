import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileQueues } from "@/lib/store/atomic";
import { ProtectedFolders, Workspace } from "@/lib/workspace";
import type { Embedder } from "@/lib/models/embeddings";
import type { ChatModel } from "@/lib/models/types";
import { DEFAULT_KNOWLEDGE_LIMITS, type KnowledgeLimits } from "./config";
import { indexDir } from "./project-index";
import { KnowledgeService } from "./service";
import { ManifestSchema } from "./schema";

const dirs: string[] = [];
function temp(prefix: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function write(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

const FIXTURE: Record<string, string> = {
  "README.md": "# Payments\n\nThe payment service.\n\n## Configuration\n\nThe `retry_delay_ms` setting defaults to 250 milliseconds.\n\n## Deployment\n\nDeploy with the container image.\n",
  "docs/orders.md": "# Orders API\n\n## Fields\n\n| field | meaning |\n|---|---|\n| order_id | the order's unique id |\n| amount_cents | the amount in cents |\n\n## Deprecation\n\nThe v1 order endpoint is deprecated.\n",
  "src/retry.ts": "/** Retries a call. */\nexport function retryWithBackoff(call: () => Promise<void>, attempts = 3): Promise<void> {\n  return call();\n}\n",
  "src/refund.ts": "export function computeRefund(amountCents: number): number {\n  return Math.round(amountCents * 0.9);\n}\n",
  ".gitignore": "build/\n*.log\n!keep.log\n",
  "build/output.md": "# Build output\n\nretry_delay_ms appears here too but this folder is ignored.\n",
  "debug.log": "retry_delay_ms noise in a log file\n",
  "keep.log": "a kept log line about zebras\n",
  "sub/.gitignore": "secret.txt\n",
  "sub/secret.txt": "zebras are secret here\n",
  "sub/public.txt": "public zebras facts\n",
  "node_modules/pkg/index.md": "# retry_delay_ms in a dependency\n",
};

/** A service of a process of its own: its write queues, and a workspace protecting `protectedFolders`. */
function service(root: string, limits: Partial<KnowledgeLimits> = {}, protectedFolders = new ProtectedFolders()): KnowledgeService {
  const queues = new FileQueues();
  return new KnowledgeService(root, { ...DEFAULT_KNOWLEDGE_LIMITS, waitMs: 10_000, refreshMs: 0, ...limits }, { queues, workspace: new Workspace({ protectedFolders, queues }) });
}

const files = (a: { passages: Array<{ file: string }> }) => a.passages.map((p) => p.file);

describe("knowledge index and search_knowledge", () => {
  it("finds Markdown sections and code by file:line-range, with their heading path", async () => {
    const project = temp("kn-proj-");
    write(project, FIXTURE);
    const s = service(temp("kn-data-"));
    const a = await s.search(project, "what is the default retry delay");
    expect(a.passages[0]).toMatchObject({ file: "README.md", heading: "Payments > Configuration", location: "README.md:5-8", lines: "5-8" });
    expect(a.passages[0]!.text).toContain("defaults to 250 milliseconds");
    expect(a.ranking).toBe("bm25");
    const code = await s.search(project, "where is the backoff retry function");
    expect(code.passages[0]).toMatchObject({ file: "src/retry.ts", location: "src/retry.ts:1-5", heading: "" });
    const field = await s.search(project, "order amount field in cents");
    expect(field.passages[0]).toMatchObject({ file: "docs/orders.md", heading: "Orders API > Fields" });
  });

  it("respects .gitignore (nested files and negations), skips node_modules and binary files", async () => {
    const project = temp("kn-proj-");
    write(project, { ...FIXTURE, "image.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 0x7a, 0x65, 0x62, 0x72, 0x61, 0x73]) });
    const s = service(temp("kn-data-"));
    await s.project(project).refresh();
    const all = files(await s.search(project, "retry_delay_ms", { limit: 20 }));
    expect(all).toContain("README.md");
    expect(all).not.toContain("build/output.md");
    expect(all).not.toContain("debug.log");
    expect(all.some((f) => f.startsWith("node_modules"))).toBe(false);
    const zebras = files(await s.search(project, "zebras", { limit: 20 }));
    expect(zebras.sort()).toEqual(["keep.log", "sub/public.txt"]);
    const st = s.project(project).status();
    expect(st).toMatchObject({ state: "ready", skipped: { binary: 1 } });
    expect(st.skipped.gitignored).toBeGreaterThanOrEqual(3);
  });

  it("never indexes a folder its workspace protects (the server's own data and app folders), and indexes it for a workspace that does not", async () => {
    const project = temp("kn-proj-");
    write(project, { ...FIXTURE, "astrion-data/models.json": '{"note": "zebras in the data folder"}\n' });
    const guarded = new ProtectedFolders();
    guarded.protect({ kind: "data", path: path.join(project, "astrion-data") });
    const s = service(temp("kn-data-"), {}, guarded);
    expect(files(await s.search(project, "zebras", { limit: 20 })).sort()).toEqual(["keep.log", "sub/public.txt"]);
    const open = service(temp("kn-data-"));
    expect(files(await open.search(project, "zebras", { limit: 20 }))).toContain("astrion-data/models.json");
  });

  it("reads at most max_file_bytes of a file, says so, and caps the files indexed", async () => {
    const project = temp("kn-proj-");
    const big = `${"filler line of a big generated file\n".repeat(40_000)}zzplatypustail\n`;
    expect(big.length).toBeGreaterThan(1_000_000);
    write(project, { "big.txt": `zzwombathead\n${big}`, "a.md": "# A\nalpha\n", "b.md": "# B\nbeta\n", "c.md": "# C\ngamma\n" });
    const s = service(temp("kn-data-"), { maxFileBytes: 64 * 1024, maxFiles: 3 });
    await s.project(project).refresh();
    const st = s.project(project).status();
    expect(st).toMatchObject({ files_indexed: 3, files_total: 3, truncated_files: 1, skipped: { over_file_limit: 1 } });
    expect(files(await s.search(project, "gamma"))).toEqual([]);
    const s2 = service(temp("kn-data-"), { maxFileBytes: 64 * 1024 });
    const start = await s2.search(project, "zzwombathead");
    expect(start.passages[0]!.file).toBe("big.txt");
    expect(start.note).toContain("big.txt is indexed only in part (its first 65536 bytes)");
    expect((await s2.search(project, "zzplatypustail")).passages).toEqual([]);
    expect(s2.project(project).status().truncated_files).toBe(1);
  });

  it("narrows by paths (folders and globs) and refuses paths that leave the project", async () => {
    const project = temp("kn-proj-");
    write(project, FIXTURE);
    const s = service(temp("kn-data-"));
    expect(files(await s.search(project, "order", { paths: ["src"] })).every((f) => f.startsWith("src/"))).toBe(true);
    expect(files(await s.search(project, "retry", { paths: ["**/*.md"] })).every((f) => f.endsWith(".md"))).toBe(true);
    expect(files(await s.search(project, "retry", { paths: ["src/retry.ts"] }))).toEqual(["src/retry.ts"]);
    await expect(s.search(project, "retry", { paths: ["../other"] })).rejects.toThrow(/\.\./);
    await expect(s.search(project, "retry", { paths: ["/etc"] })).rejects.toThrow(/absolute/);
  });

  it("updates incrementally: a changed file alone is read again, a deleted one is gone, a new one found", async () => {
    const project = temp("kn-proj-");
    write(project, { ...FIXTURE, "logo.png": Buffer.from([0x89, 0x50, 0, 0, 1, 2]) });
    const data = temp("kn-data-");
    const s = service(data);
    const first = await s.project(project).refresh();
    expect(first.reindexed.length).toBeGreaterThan(5);
    expect((await s.project(project).refresh()).reindexed).toEqual([]);
    writeFileSync(path.join(project, "src/refund.ts"), "export function computeRefund(amountCents: number): number {\n  return amountCents; // full refunds, no platypus fee\n}\n");
    const later = new Date(Date.now() + 5000);
    utimesSync(path.join(project, "src/refund.ts"), later, later);
    rmSync(path.join(project, "docs/orders.md"));
    write(project, { "docs/new.md": "# New\n\nThe platypus section.\n" });
    const r = await s.project(project).refresh();
    expect(r.reindexed.sort()).toEqual(["docs/new.md", "src/refund.ts"]);
    expect(r.removed).toEqual(["docs/orders.md"]);
    expect(files(await s.search(project, "platypus")).sort()).toEqual(["docs/new.md", "src/refund.ts"]);
    expect(files(await s.search(project, "deprecated order endpoint"))).not.toContain("docs/orders.md");

    // stored: a new service (a restart) loads it and reads nothing again
    const manifest = ManifestSchema.parse(JSON.parse(readFileSync(path.join(indexDir(data, project), "manifest.json"), "utf8")));
    expect(Object.keys(manifest.files)).toContain("docs/new.md");
    expect(readdirSync(path.join(indexDir(data, project), "chunks")).length).toBeGreaterThan(0);
    const again = service(data);
    expect((await again.project(project).refresh()).reindexed).toEqual([]);
    expect(files(await again.search(project, "platypus")).sort()).toEqual(["docs/new.md", "src/refund.ts"]);
  });

  it("fuses vectors when an embedding model is given, and says so when it fails", async () => {
    const project = temp("kn-proj-");
    write(project, FIXTURE);
    // A toy embedder: one dimension per word of a small vocabulary.
    const vec = (t: string) => {
      const l = t.toLowerCase();
      return [l.includes("refund") || l.includes("money back") ? 1 : 0, l.includes("retry") ? 1 : 0, l.includes("order") ? 1 : 0, 0.001];
    };
    let fail = false;
    const embedder: Embedder = { key: "toy", embed: async (texts) => { if (fail) throw new Error("down"); return texts.map(vec); } };
    const s = service(temp("kn-data-"));
    const a = await s.search(project, "give the money back", { embedder });
    expect(a.ranking).toBe("bm25+vectors");
    expect(a.passages[0]!.file).toBe("src/refund.ts");
    fail = true;
    const b = await s.search(project, "computeRefund", { embedder });
    expect(b.ranking).toBe("bm25");
    expect(b.note).toContain("the embedding model failed");
    expect(b.passages[0]!.file).toBe("src/refund.ts");
  });

  it("an embedding model failing while indexing leaves a BM25 index, reported, and is not retried on every refresh", async () => {
    const project = temp("kn-proj-");
    write(project, FIXTURE);
    let calls = 0;
    const down: Embedder = { key: "down", embed: async () => { calls++; throw new Error("connection refused"); } };
    const s = service(temp("kn-data-"));
    const first = await s.project(project).refresh({ embedder: down });
    expect(first.reindexed.length).toBeGreaterThan(5);
    expect(s.project(project).status()).toMatchObject({ state: "ready", embedding: null, error: expect.stringContaining('embedding model "down" failed: connection refused') });
    const before = calls;
    expect((await s.project(project).refresh({ embedder: down })).reindexed).toEqual([]);
    expect(calls).toBe(before);
    const a = await s.search(project, "retry_delay_ms", { embedder: down });
    expect(a.ranking).toBe("bm25");
    expect(a.passages[0]!.file).toBe("README.md");
  });

  it("reranks the top passages with a reranker model, and keeps the lexical order when it fails", async () => {
    const project = temp("kn-proj-");
    write(project, FIXTURE);
    const s = service(temp("kn-data-"));
    const lexical = await s.search(project, "retry");
    expect(lexical.passages.length).toBeGreaterThan(1);
    let answer = "";
    const reranker = { key: "judge", stream: async () => ({ content: answer, reasoning: "", tool_calls: [], finish_reason: "stop" }) } as unknown as ChatModel;
    const last = lexical.passages.length;
    answer = JSON.stringify({ scores: lexical.passages.map((_, i) => ({ id: i + 1, score: i === last - 1 ? 1 : 0.1 })) });
    const r = await s.search(project, "retry", { reranker });
    expect(r.reranked).toBe(true);
    expect(r.passages[0]!.location).toBe(lexical.passages[last - 1]!.location);
    answer = '{"scores": [{"id": 99, "score": 1}]}';
    const bad = await s.search(project, "retry", { reranker });
    expect(bad.reranked).toBe(false);
    expect(bad.passages.map((p) => p.location)).toEqual(lexical.passages.map((p) => p.location));
    expect(bad.note).toMatch(/reranker "judge" failed .*lexical order is kept/);
  });

  it("answers from a partial index with its progress when the build takes longer than the wait", async () => {
    const project = temp("kn-proj-");
    const many: Record<string, string> = {};
    for (let i = 0; i < 400; i++) many[`f${String(i).padStart(3, "0")}.md`] = `# File ${i}\n\nword${i} shared topic\n`;
    write(project, many);
    const s = service(temp("kn-data-"), { waitMs: 0 });
    const a = await s.search(project, "shared topic");
    expect(a.index.state).toBe("building");
    expect(a.note).toMatch(/still being built \(\d+ of \d+ files so far\)/);
    await s.project(project).running;
    expect(s.project(project).status()).toMatchObject({ state: "ready", files_indexed: 400, files_total: 400 });
  });
});

/**
 * Retrieval quality (issue 11): the 50-question benchmark of bench/knowledge-questions.json over
 * a real repository in node_modules (eslint-plugin-import: its rule docs, README and compiled
 * sources, CHANGELOG included as a distractor). With BM25 alone, the file that answers a question
 * must be among the files of the top 5 passages for at least 80% of the questions. A quality
 * assertion, not a timed one.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileQueues } from "@/lib/store/atomic";
import { ProtectedFolders, Workspace } from "@/lib/workspace";
import { z } from "zod";
import { DEFAULT_KNOWLEDGE_LIMITS } from "./config";
import { KnowledgeService } from "./service";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const QuestionsSchema = z.object({ package: z.string(), version: z.string(), questions: z.array(z.object({ id: z.number(), question: z.string(), file: z.string() })).length(50) });
const bench = QuestionsSchema.parse(JSON.parse(readFileSync(path.join(ROOT, "bench", "knowledge-questions.json"), "utf8")));
const data = mkdtempSync(path.join(os.tmpdir(), "kn-quality-"));
afterAll(() => rmSync(data, { recursive: true, force: true }));

/** What the composition root would give the service: one process's write queues and workspace. */
function knowledgeParts() {
  const queues = new FileQueues();
  return { queues, workspace: new Workspace({ protectedFolders: new ProtectedFolders(), queues }) };
}

describe("knowledge retrieval quality", () => {
  it("puts the answering file in the top 5 for at least 80% of the 50 questions (BM25 alone)", async () => {
    const project = path.join(ROOT, "node_modules", bench.package);
    expect(JSON.parse(readFileSync(path.join(project, "package.json"), "utf8")).version).toBe(bench.version);
    const s = new KnowledgeService(data, { ...DEFAULT_KNOWLEDGE_LIMITS, refreshMs: 60_000 }, knowledgeParts());
    await s.project(project).refresh();
    const misses: string[] = [];
    for (const q of bench.questions) {
      const answer = await s.search(project, q.question, { limit: 5 });
      const files = answer.passages.map((p) => p.file);
      if (!files.includes(q.file)) misses.push(`${q.id} ${q.file} ← ${files.join(", ")}`);
    }
    const rate = (bench.questions.length - misses.length) / bench.questions.length;
    expect(rate, `misses:\n${misses.join("\n")}`).toBeGreaterThanOrEqual(0.8);
  });
});

/**
 * The reranker (seed 003 §5.3's third step): a chat model on the `reranker` key of models.json
 * that only judges relevance. It is shown the question and the top passages (numbered, each cut
 * to {@link RERANK_PASSAGE_CHARS}) and must answer strict JSON `{"scores": [{"id": n, "score":
 * 0..1}, …]}`, validated with zod. The passages are reordered by score (ties keep the lexical
 * order); any failure — an error, a timeout, JSON that does not fit, an id it was not shown —
 * keeps the lexical order and says why. Pure apart from the model it is handed.
 */
import { z } from "zod";
import type { ChatModel } from "@/lib/models/types";
import { jsonObjectIn } from "@/lib/models/answer-json";

/** Passages sent to the reranker. */
export const RERANK_TOP = 10;
/** Characters of one passage shown to it. */
const RERANK_PASSAGE_CHARS = 1200;
/** Its deadline. */
const RERANK_TIMEOUT_MS = 15_000;

/** What the reranker must answer. */
const RerankAnswerSchema = z
  .object({
    scores: z.array(z.object({ id: z.number().int().min(1), score: z.number().min(0).max(1) }).strict()).max(100),
  })
  .strict();

/** One passage as the reranker is shown it. */
export interface RerankItem {
  location: string;
  heading: string;
  text: string;
}

/** The reranker's order of `items` (indexes into it), or why it could not give one. */
export type RerankOutcome = { ok: true; order: number[] } | { ok: false; reason: string };


/** The reranker's messages. */
export function rerankMessages(query: string, items: readonly RerankItem[]): Array<{ role: "system" | "user"; content: string }> {
  const list = items.map((it, i) => `[${i + 1}] ${it.location}${it.heading ? ` (${it.heading})` : ""}\n${it.text.slice(0, RERANK_PASSAGE_CHARS)}`).join("\n\n");
  return [
    {
      role: "system",
      content:
        'You judge whether passages answer a question. You do not answer it. Reply with JSON only: {"scores": [{"id": <passage number>, "score": <0 to 1>}, ...]} with one entry per passage; 1 means the passage states the answer, 0 means it is unrelated.',
    },
    { role: "user", content: `Question: ${query}\n\nPassages:\n\n${list}` },
  ];
}

/** Parses an answer for `count` passages into an order (best first); throws on anything that does not fit. */
export function orderFromAnswer(answer: string, count: number): number[] {
  const parsed = RerankAnswerSchema.parse(jsonObjectIn(answer, 20_000));
  const score = new Map<number, number>();
  for (const s of parsed.scores) {
    if (s.id > count) throw new Error(`passage ${s.id} was not shown`);
    if (score.has(s.id)) throw new Error(`passage ${s.id} scored twice`);
    score.set(s.id, s.score);
  }
  if (score.size === 0) throw new Error("no scores");
  // A passage it did not score keeps its place after the scored ones of higher score: scored 0.
  return Array.from({ length: count }, (_, i) => i).sort((a, b) => (score.get(b + 1) ?? 0) - (score.get(a + 1) ?? 0) || a - b);
}

/** Asks `model` to reorder `items` for `query`; see the file comment. */
export async function rerank(model: ChatModel, query: string, items: readonly RerankItem[], options: { signal?: AbortSignal; timeoutMs?: number; meta?: { conversation_id?: string; trace_id?: string } } = {}): Promise<RerankOutcome> {
  if (items.length < 2) return { ok: true, order: items.map((_, i) => i) };
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? RERANK_TIMEOUT_MS);
  try {
    const result = await model.stream({ messages: rerankMessages(query, items), thinking: "off", signal: controller.signal, meta: options.meta });
    return { ok: true, order: orderFromAnswer(result.content ?? "", items.length) };
  } catch (error) {
    const reason = controller.signal.aborted && !options.signal?.aborted ? "it did not answer in time" : error instanceof z.ZodError ? "its answer was not the JSON asked for" : error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `reranker "${model.key}" failed (${reason.slice(0, 200)}); the lexical order is kept` };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

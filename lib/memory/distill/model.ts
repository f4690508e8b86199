/**
 * The model path of the distiller: the prompt that hands a model a conversation's conclusions,
 * the zod schema its JSON answer must match (the JSON Schema in the prompt is generated from it),
 * and reading an answer into candidates. Level and grant stay the code's (level.ts): a model may
 * only raise a level. Pure: the runtime makes the call, retries once on an invalid answer, then
 * falls back to the rules.
 */
import { z } from "zod";
import type { ChatMessage } from "@/lib/models/types";
import { decideLevel, projectOf } from "./level";
import { subjectOf } from "./text";
import { isFileReference } from "./trivia";
import { MAX_CANDIDATES, MAX_STATEMENT_CHARS, MAX_SUBJECT_CHARS, type Conclusion, type DistillContext, type DistilledCandidate } from "./types";
import { jsonObjectIn } from "@/lib/models/answer-json";

/** One entry of a model's answer. `sources` are conclusion ids (`c1`…) from the prompt. */
const DistillAnswerEntrySchema = z.strictObject({
  kind: z.enum(["fact", "preference", "open_issue"]),
  statement: z.string().trim().min(1).max(MAX_STATEMENT_CHARS),
  subject: z.string().trim().min(1).max(MAX_SUBJECT_CHARS),
  level: z.enum(["public", "project", "restricted"]),
  confidence: z.number().min(0).max(1),
  sources: z.array(z.string().regex(/^c\d+$/)).min(1).max(20),
});

/** A model's whole answer: `{"entries": [...]}` (an empty list when nothing lasts). */
const DistillAnswerSchema = z.strictObject({ entries: z.array(DistillAnswerEntrySchema).max(MAX_CANDIDATES) });

let schemaText: string | null = null;

/** The JSON Schema of the answer, generated from {@link DistillAnswerSchema}. */
export function distillAnswerJsonSchema(): string {
  schemaText ??= JSON.stringify(z.toJSONSchema(DistillAnswerSchema, { io: "input" }));
  return schemaText;
}

/** The system prompt of a distillation. */
function distillSystemPrompt(): string {
  return [
    "You are a memory distiller. From the conclusions of a finished conversation, keep only what should be remembered for later conversations: lasting conclusions, never the message flow.",
    "Kinds: fact (a project fact, e.g. an API is deprecated), preference (how the person wants things done), open_issue (something asked and not answered, or not done yet).",
    "Levels: public (module structure, API names, general technical conclusions), project (business rules, user preferences, open work of this project), restricted (personal or sensitive data).",
    "Each entry cites the conclusion ids it comes from in `sources`. Write statements as one self-contained sentence in the language of the conclusions; `subject` names what the statement is about in a few words. Leave out anything about this conversation's own team or progress.",
    `Answer with one JSON object only, matching this JSON Schema: ${distillAnswerJsonSchema()}`,
  ].join("\n");
}

/** The conclusions as the model reads them: one line each, `[c3] (report by Reviewer_2) text`. */
function conclusionsText(conclusions: readonly Conclusion[]): string {
  return conclusions
    .map((c) => `[${c.id}] (${c.source === "report" || c.source === "summary" || c.source === "marker" || c.source === "stated" ? `${c.source} by ${c.by}` : c.source}${c.status ? `, ${c.status}` : ""}${c.open ? ", open" : ""}) ${c.text}`)
    .join("\n");
}

/** The messages of a distillation call. */
export function distillMessages(conclusions: readonly Conclusion[], title: string): ChatMessage[] {
  return [
    { role: "system", content: distillSystemPrompt() },
    { role: "user", content: `Conversation: ${title.replace(/\s+/g, " ").slice(0, 200)}\nConclusions:\n${conclusionsText(conclusions)}` },
  ];
}

/** The messages of the one retry, after an invalid answer: what was wrong, and the same request. */
export function retryMessages(first: readonly ChatMessage[], answer: string, error: string): ChatMessage[] {
  return [...first, { role: "assistant", content: answer.slice(0, 4000) }, { role: "user", content: `That answer is not valid: ${error}. Answer again with one JSON object only, matching the JSON Schema.` }];
}


/** What reading an answer gives: candidates, or why the answer is invalid. */
export type ParsedDistillAnswer = { ok: true; candidates: DistilledCandidate[] } | { ok: false; error: string };

/**
 * Reads a model's answer: JSON matching {@link DistillAnswerSchema}, every source a conclusion of
 * the prompt. Message ids come from the cited conclusions; level and grant from level.ts (the
 * model's level can only raise it); the subject is the model's, in its case, unless it is a bare
 * file reference (`README.md:39`): then the rules' subject of the statement.
 */
export function parseDistillAnswer(answer: string, conclusions: readonly Conclusion[], ctx: DistillContext): ParsedDistillAnswer {
  let raw: unknown;
  try {
    raw = jsonObjectIn(answer, 200_000);
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
  const parsed = DistillAnswerSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") };
  const byId = new Map(conclusions.map((c) => [c.id, c]));
  const unknown = parsed.data.entries.flatMap((e) => e.sources.filter((s) => !byId.has(s)));
  if (unknown.length) return { ok: false, error: `sources name no conclusion: ${[...new Set(unknown)].join(", ")}` };
  const project = projectOf(ctx);
  const candidates = parsed.data.entries.map((e): DistilledCandidate => {
    const cited = [...new Set(e.sources)].map((s) => byId.get(s)!);
    const roleId = cited.find((c) => c.role_id)?.role_id;
    const { level, grant } = decideLevel(e.kind, [e.statement, ...cited.map((c) => c.text)], ctx, roleId, e.level);
    return {
      kind: e.kind,
      statement: e.statement,
      subject: isFileReference(e.subject) ? subjectOf(e.statement) : e.subject,
      project_path: project,
      level,
      grant,
      source: { conversation_id: ctx.conversation_id, message_ids: [...new Set(cited.flatMap((c) => c.message_ids))] },
      confidence: e.confidence,
    };
  });
  return { ok: true, candidates };
}

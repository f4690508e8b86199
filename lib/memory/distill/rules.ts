/**
 * The offline distiller: conclusions → memory candidates by rules, no model. Each conclusion is
 * one candidate:
 *
 * - kind: `open_issue` when it was asked and never answered, listed as open or phrased as not done
 *   yet (`… not covered yet`, `尚未…`); `preference` when a person said what they prefer (or a
 *   conclusion, a person's stated one included, says what someone prefers); else `fact`;
 * - subject: see `subjectOf`; level and grant: see level.ts;
 * - confidence: a `CONCLUSION:` line 0.9, a person's stated preference, conclusion or decision 0.85, a completed report's
 *   finding 0.75, the leader's summary 0.7, an open question 0.6; a failed report's finding 0.4.
 *
 * Pure.
 */
import { decideLevel, projectOf } from "./level";
import { readsOpen, readsPreference, subjectOf } from "./text";
import { MAX_CANDIDATES, type Conclusion, type DistillContext, type DistilledCandidate, type DistilledKind } from "./types";

const CONFIDENCE: Record<Conclusion["source"], number> = { marker: 0.9, person: 0.85, stated: 0.85, report: 0.75, summary: 0.7, question: 0.6 };

/** The kind the rules give a conclusion. */
function kindOf(c: Conclusion): DistilledKind {
  if (c.open || c.source === "question" || readsOpen(c.text)) return "open_issue";
  if (c.source === "person" || readsPreference(c.text)) return "preference";
  return "fact";
}

/** The confidence the rules give a conclusion. */
function confidenceOf(c: Conclusion): number {
  if (c.status && c.status !== "completed") return 0.4;
  return kindOf(c) === "open_issue" && c.source !== "marker" ? CONFIDENCE.question : CONFIDENCE[c.source];
}

/** Candidates from conclusions by the rules; at most {@link MAX_CANDIDATES}, the newest kept. */
export function distillByRules(conclusions: readonly Conclusion[], ctx: DistillContext): DistilledCandidate[] {
  const project = projectOf(ctx);
  return conclusions.slice(-MAX_CANDIDATES).map((c) => {
    const kind = kindOf(c);
    const { level, grant } = decideLevel(kind, [c.text], ctx, c.role_id);
    return {
      kind,
      statement: c.text,
      subject: subjectOf(c.text),
      project_path: project,
      level,
      grant,
      source: { conversation_id: ctx.conversation_id, message_ids: [...c.message_ids] },
      confidence: confidenceOf(c),
    };
  });
}

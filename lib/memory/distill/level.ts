/**
 * The level rule of a distilled entry (seed 003 §5.4), decided in code whichever path distilled
 * it, in this order:
 *
 * 1. `restricted` when the text had sensitive content — anything the redaction pass would mask
 *    (e-mail, phone, key or token, IP address, configured account id, ID or bank card). It is
 *    granted to the role whose report it came from and to the leader (`leader`); nobody else.
 * 2. `public` when the conversation has no project folder (a project entry needs one to be read).
 * 3. `project` for preferences and open issues (this person's wishes, this project's open work).
 * 4. For facts: `public` when the statement is technical — it names code or structure (a code
 *    span, a path or file name, an identifier, an API, module, function, schema, field…) —
 *    else `project` (a business rule or other project-specific statement).
 *
 * A model may propose a level (the model path): it can raise a fact's level to `restricted` but
 * never lower rule 1, and a `project` level without a project folder becomes `public`.
 */
import { redact } from "@/lib/redaction/redact";
import { readsTechnical } from "./text";
import type { DistillContext, DistilledKind, DistilledLevel } from "./types";

/** The role id the Team Leader reads memory as. */
export const LEADER_READER = "leader";

/** True when `text` holds anything the redaction pass masks. */
function isSensitive(text: string, accountPatterns?: DistillContext["accountPatterns"]): boolean {
  try {
    return redact(text, { accountPatterns }).spans.length > 0;
  } catch {
    // A refused account pattern must not make a secret look harmless: without the configured
    // patterns, the built-in detectors still decide.
    return redact(text).spans.length > 0;
  }
}

/** The project folder an entry belongs to: the conversation's, or null when it has none. */
export function projectOf(ctx: DistillContext): string | null {
  return ctx.project_path && ctx.project_path.trim() ? ctx.project_path : null;
}

/** What the level rule decides for one statement. */
export interface LevelDecision {
  level: DistilledLevel;
  grant: string[];
}

/**
 * The level and grant of a statement by the rule above. `texts` are the statement and the
 * conclusions it came from (any of them sensitive makes it restricted); `roleId` the role whose
 * report it came from; `proposed` a model's level.
 */
export function decideLevel(kind: DistilledKind, texts: readonly string[], ctx: DistillContext, roleId?: string | null, proposed?: DistilledLevel): LevelDecision {
  if (proposed === "restricted" || texts.some((t) => isSensitive(t, ctx.accountPatterns))) {
    return { level: "restricted", grant: [...new Set([LEADER_READER, ...(roleId ? [roleId] : [])])] };
  }
  if (!projectOf(ctx)) return { level: "public", grant: [] };
  if (proposed) return { level: proposed, grant: [] };
  if (kind !== "fact") return { level: "project", grant: [] };
  return { level: readsTechnical(texts[0] ?? "") ? "public" : "project", grant: [] };
}

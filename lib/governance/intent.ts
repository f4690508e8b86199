/**
 * Intent routing (seed 003 §2.1, §7.2): the user's message is turned into intent labels and the
 * registered roles whose capability tags fit them, before the leader's turn. Deterministic
 * matching is the default and the fallback; a small classifier model is used when the registry
 * names one, and any failure of it falls back to the deterministic result. Either way the roles
 * are also ranked by BM25 over their id, name, description and tags (issue 9, `role-index.ts`),
 * so a role is found even when no tag of it fits. The whitelist
 * (`authorizedRoles`, `isAuthorized`) decides which roles a conversation may create at all —
 * the model only ever chooses among those.
 */
import { z } from "zod";
import type { ChatModel } from "@/lib/models/types";
import { RoleIdSchema } from "@/lib/roles/schema";
import { normalizeTag, type CapabilityRegistry, type RoleLifecycle } from "./registry";
import { stems } from "@/lib/text/stems";
import { matchTokens } from "@/lib/text/terms";
import { hasCjk, normalizeText } from "@/lib/text/words";
import { roleIndex, ROUTING_STOP_WORDS } from "./role-index";
import { CAPABILITY_SYNONYMS } from "./vocabulary";
import { jsonObjectIn } from "@/lib/models/answer-json";

/** One role that fits the request. */
interface IntentCandidate {
  role_id: string;
  score: number;
  /** The role's tags that matched, best first. */
  matched: string[];
  /** True when the role's tags were derived from its name and description (it declares none). */
  derived: boolean;
  /** The role's BM25 score relative to the best BM25 hit of the request (1 = best; 0 = no text match). */
  bm25: number;
  state: RoleLifecycle;
}

/** The outcome of classifying one message. */
export interface IntentResult {
  /** Intent labels (capability tags) the message asks for, sorted. */
  labels: string[];
  /** Roles whose tags or text fit, best first; DEGRADED roles after the healthy ones. */
  candidates: IntentCandidate[];
  /** Who produced the labels. */
  source: "deterministic" | "model";
}

/** Characters of a message classified: what a request asks for is said at its start, and the work stays small for a 100,000-character message. */
export const INTENT_READ_CHARS = 8000;

/** The vocabulary's words and terms per tag (kept under this name for the callers that knew it). */
const INTENT_SYNONYMS = CAPABILITY_SYNONYMS;

/** Does `term` occur in the message (substring for CJK terms, whole token otherwise)? */
function hasTerm(term: string, tokens: ReadonlySet<string>, lower: string): boolean {
  return hasCjk(term) ? lower.includes(term) : tokens.has(term);
}

/** The words of a tag: `code-review` → `code`, `review`; `unit_tests` → `unit`, `tests`. */
function tagWords(tag: string): string[] {
  return tag.split(/[-_./]+/).filter(Boolean);
}

/** The capability tags a message names, directly (all words of the tag) or through a synonym. */
function labelsOf(text: string, knownTags: Iterable<string>): { full: Set<string>; partial: Map<string, number> } {
  const lower = normalizeText(text);
  const tokens = new Set(matchTokens(text));
  const full = new Set<string>();
  const partial = new Map<string, number>();
  for (const tag of knownTags) {
    if (hasCjk(tag)) {
      if (lower.includes(tag)) full.add(tag);
      continue;
    }
    const words = tagWords(tag);
    const hits = words.filter((w) => stems(w).some((s) => tokens.has(s)));
    if (hits.length === words.length && words.length > 0) full.add(tag);
    else {
      const meaningful = hits.filter((w) => !ROUTING_STOP_WORDS.has(w));
      if (meaningful.length) partial.set(tag, meaningful.length / words.length);
    }
  }
  for (const [term, tags] of Object.entries(INTENT_SYNONYMS)) {
    if (hasTerm(term, tokens, lower)) for (const t of tags) full.add(t);
  }
  return { full, partial };
}

/** Weight of a partial match relative to a full tag match (1). */
const PARTIAL_WEIGHT = 0.3;

/**
 * Weight of a tag derived from a role's description relative to a declared one (1): a person
 * chose the declared tags, while a description names many things in passing.
 */
export const DERIVED_TAG_WEIGHT = 0.5;

/** Weight of the best BM25 hit relative to one declared tag match (1). */
export const BM25_WEIGHT = 1;

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Ranks the registry's roles for a request; shared by both classifiers. One list from two
 * signals, summed per role:
 *  - tags: 1 per tag of the role among the labels (a fraction for a partly named multi-word tag),
 *    times DERIVED_TAG_WEIGHT when the role's tags were derived rather than declared;
 *  - BM25: the role's BM25+ score over its id, name, description and tags for the request text,
 *    divided by the best score of the request (so 0–1, whatever the corpus), times BM25_WEIGHT.
 * The best text match is thus worth one declared tag: tags lead when they fit, and the text
 * still orders roles whose tags tie, and finds a role no tag of which fits.
 * Order: healthy before DEGRADED, then score, then role id (deterministic for ties).
 */
function rank(
  registry: CapabilityRegistry,
  text: string,
  full: ReadonlySet<string>,
  partial: ReadonlyMap<string, number>,
  limit: number,
): IntentCandidate[] {
  const hits = roleIndex(registry.roles).search(text);
  const top = hits[0]?.score ?? 0;
  const bm25 = new Map(hits.map((h) => [h.role_id, top > 0 ? h.score / top : 0]));
  const candidates: IntentCandidate[] = [];
  for (const role of registry.roles) {
    let tagScore = 0;
    const fullHits: string[] = [];
    const partialHits: string[] = [];
    for (const tag of role.capabilities) {
      if (full.has(tag)) {
        tagScore += 1;
        fullHits.push(tag);
      } else if (partial.has(tag)) {
        tagScore += PARTIAL_WEIGHT * partial.get(tag)!;
        partialHits.push(tag);
      }
    }
    const derived = role.capabilities_source === "derived";
    const text = bm25.get(role.id) ?? 0;
    const score = (derived ? DERIVED_TAG_WEIGHT : 1) * tagScore + BM25_WEIGHT * text;
    if (score > 0) {
      candidates.push({ role_id: role.id, score: round2(score), matched: [...fullHits, ...partialHits], derived, bm25: round2(text), state: role.state });
    }
  }
  candidates.sort(
    (a, b) => Number(a.state === "DEGRADED") - Number(b.state === "DEGRADED") || b.score - a.score || a.role_id.localeCompare(b.role_id),
  );
  return candidates.slice(0, limit);
}

/** Options of the classifiers. */
export interface ClassifyOptions {
  /** Most candidates returned (default 5). */
  limit?: number;
}

/**
 * Deterministic intent classification: labels are the capability tags the message names (all
 * words of a tag, or a synonym such as 审查 → code-review); roles are ranked by those tags and by
 * BM25 over their text (see `rank`).
 */
export function classifyIntent(text: string, registry: CapabilityRegistry, options: ClassifyOptions = {}): IntentResult {
  const read = text.slice(0, INTENT_READ_CHARS);
  const { full, partial } = labelsOf(read, registry.byTag.keys());
  return { labels: [...full].sort(), candidates: rank(registry, read, full, partial, options.limit ?? 5), source: "deterministic" };
}

/** What the classifier model must answer. */
const ClassifierAnswerSchema = z.object({ labels: z.array(z.string().min(1).max(64)).max(32) });

/** Options of {@link classifyIntentWithModel}. */
export interface ModelClassifyOptions extends ClassifyOptions {
  /** Deadline of the one-shot call (default 2000 ms, the fast tier); past it the deterministic result is used. */
  timeoutMs?: number;
  signal?: AbortSignal;
  meta?: { conversation_id?: string; trace_id?: string };
}


/**
 * Classification by a small model: one call asks for `{"labels": [...]}` chosen from the
 * registry's tags. The answer is validated with zod and unknown labels are dropped; an error,
 * a timeout, invalid JSON or no usable label all give the deterministic result instead, so
 * routing never depends on the model being up.
 */
export async function classifyIntentWithModel(
  text: string,
  registry: CapabilityRegistry,
  model: ChatModel,
  options: ModelClassifyOptions = {},
): Promise<IntentResult> {
  const fallback = () => classifyIntent(text, registry, options);
  const tags = [...registry.byTag.keys()].sort();
  if (!tags.length) return fallback();
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 2000);
  try {
    const result = await model.stream({
      messages: [
        {
          role: "system",
          content:
            'You classify a request into capability labels. Answer with JSON only: {"labels": ["tag", ...]}. ' +
            `Choose only from these tags: ${tags.join(", ")}. Use an empty list when none fits.`,
        },
        { role: "user", content: text },
      ],
      thinking: "off",
      signal: controller.signal,
      meta: options.meta,
    });
    const parsed = ClassifierAnswerSchema.safeParse(jsonObjectIn(result.content, 20_000));
    if (!parsed.success) return fallback();
    const known = new Set(tags);
    const labels = new Set(parsed.data.labels.map(normalizeTag).filter((l) => known.has(l)));
    if (!labels.size) return fallback();
    return { labels: [...labels].sort(), candidates: rank(registry, text.slice(0, INTENT_READ_CHARS), labels, new Map(), options.limit ?? 5), source: "model" };
  } catch {
    return fallback();
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** `allowed_roles` of a conversation's metadata: a list of role ids, or absent. */
const AllowedRolesSchema = z.array(RoleIdSchema).max(500);

/**
 * The conversation's role whitelist from its metadata (`allowed_roles`), or undefined when it
 * has none (every registered role is allowed). A malformed value allows nothing: a broken
 * whitelist must fail closed, not open.
 */
export function allowListFromMetadata(metadata: unknown): string[] | undefined {
  if (typeof metadata !== "object" || metadata === null || !("allowed_roles" in metadata)) return undefined;
  const raw = (metadata as { allowed_roles?: unknown }).allowed_roles;
  if (raw === undefined || raw === null) return undefined;
  const parsed = AllowedRolesSchema.safeParse(raw);
  return parsed.success ? parsed.data : [];
}

/**
 * The roles this conversation may use: all registered ones, or, when the conversation has an
 * allow list, only the registered ones on it (an id on the list that is not registered stays out).
 */
export function authorizedRoles<T extends { id: string }>(all: readonly T[], conversationAllowList?: readonly string[] | null): T[] {
  if (!conversationAllowList) return [...all];
  const allowed = new Set(conversationAllowList);
  return all.filter((r) => allowed.has(r.id));
}

/** Why a role id may not be used, or null when it may. */
export function roleRefusal<T extends { id: string }>(roleId: string, all: readonly T[], conversationAllowList?: readonly string[] | null): string | null {
  if (!all.some((r) => r.id === roleId)) {
    return `role "${roleId}" is not registered; choose one of: ${authorizedRoles(all, conversationAllowList).map((r) => r.id).join(", ") || "(none)"}`;
  }
  if (conversationAllowList && !conversationAllowList.includes(roleId)) {
    return `role "${roleId}" is not authorized for this conversation; choose one of: ${authorizedRoles(all, conversationAllowList).map((r) => r.id).join(", ") || "(none)"}`;
  }
  return null;
}

/** True when `roleId` is registered and authorized for this conversation. */
export function isAuthorized<T extends { id: string }>(roleId: string, all: readonly T[], conversationAllowList?: readonly string[] | null): boolean {
  return roleRefusal(roleId, all, conversationAllowList) === null;
}

/** Why a role is a candidate: its tags that matched (marked when derived), else a match of its text. */
function whyCandidate(c: IntentCandidate): string {
  if (!c.matched.length) return "text match";
  return c.derived ? `${c.matched.join(", ")}; derived tags` : c.matched.join(", ");
}

/**
 * The short note added to the leader's context before its turn, e.g.
 * "Candidate roles for this request: code-reviewer (code-review, python); k8s-architect (kubernetes; derived tags); sql-pro (text match)."
 * Empty when nothing matched, so the leader is not nudged toward a role that does not fit.
 */
export function candidateNote(result: IntentResult): string {
  if (!result.candidates.length) return "";
  const list = result.candidates
    .map((c) => `${c.role_id} (${whyCandidate(c)})${c.state === "IDLE" ? "" : ` [${c.state}]`}`)
    .join("; ");
  return `Candidate roles for this request: ${list}. Intent labels: ${result.labels.join(", ") || "(none)"}. Prefer these roles when you create sub-agents; only registered, authorized roles can be created.`;
}

/**
 * Intent routing (seed 003 §2.1, §7.2): the user's message is turned into intent labels and the
 * registered roles whose capability tags fit them, before the leader's turn. Deterministic
 * matching is the default and the fallback; a small classifier model is used when the registry
 * names one, and any failure of it falls back to the deterministic result. The whitelist
 * (`authorizedRoles`, `isAuthorized`) decides which roles a conversation may create at all —
 * the model only ever chooses among those.
 */
import { z } from "zod";
import type { ChatModel } from "@/lib/models/types";
import { RoleIdSchema } from "@/lib/roles/schema";
import { normalizeTag, type CapabilityRegistry, type RoleLifecycle } from "./registry";

/** One role that fits the request. */
export interface IntentCandidate {
  role_id: string;
  score: number;
  /** The role's tags that matched, best first. */
  matched: string[];
  state: RoleLifecycle;
}

/** The outcome of classifying one message. */
export interface IntentResult {
  /** Intent labels (capability tags) the message asks for, sorted. */
  labels: string[];
  /** Roles whose tags fit, best first; DEGRADED roles after the healthy ones. */
  candidates: IntentCandidate[];
  /** Who produced the labels. */
  source: "deterministic" | "model";
}

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/;
const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+/g;

/** Characters of a message classified: what a request asks for is said at its start, and the work stays small for a 100,000-character message. */
export const INTENT_READ_CHARS = 8000;

/** Words too common to count as a partial match of a multi-word tag ("code" alone is not "code-review"). */
const STOP_WORDS: ReadonlySet<string> = new Set(
  "a an and or the of to for in on at by with from is are be it this that these those my our your me we you i please can could would should will do does did make get code file files data".split(" "),
);

/**
 * Words (English, lowercase) and Chinese terms that stand for capability tags. Keys with CJK
 * characters match as substrings of the message; English keys match whole words (after a light
 * stemming, so "tests" and "testing" both reach "test").
 */
export const INTENT_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  review: ["code-review"],
  reviewer: ["code-review"],
  审查: ["code-review"],
  评审: ["code-review"],
  审阅: ["code-review"],
  审核: ["code-review"],
  audit: ["security-review"],
  security: ["security-review"],
  vulnerability: ["security-review"],
  安全: ["security-review"],
  漏洞: ["security-review"],
  审计: ["security-review"],
  diff: ["diff-analysis"],
  变更: ["diff-analysis"],
  改动: ["diff-analysis"],
  test: ["testing"],
  tester: ["testing"],
  测试: ["testing"],
  单测: ["testing", "unit-tests"],
  单元测试: ["testing", "unit-tests"],
  集成测试: ["testing", "integration-tests"],
  ui: ["ui-design", "frontend"],
  ux: ["ui-design"],
  前端: ["ui-design", "frontend"],
  页面: ["ui-design", "frontend"],
  界面: ["ui-design", "frontend"],
  样式: ["css", "ui-design"],
  style: ["css"],
  css: ["css"],
  配色: ["color-scheme"],
  颜色: ["color-scheme"],
  colour: ["color-scheme"],
  color: ["color-scheme"],
  a11y: ["accessibility"],
  无障碍: ["accessibility"],
  docs: ["documentation"],
  doc: ["documentation"],
  document: ["documentation"],
  documentation: ["documentation"],
  文档: ["documentation"],
  说明: ["documentation"],
  readme: ["readme", "documentation"],
  tutorial: ["tutorials", "documentation"],
  教程: ["tutorials", "documentation"],
  research: ["research"],
  investigate: ["research"],
  调研: ["research"],
  研究: ["research"],
  调查: ["research"],
  compare: ["comparison"],
  对比: ["comparison"],
  比较: ["comparison"],
  summarize: ["summarization"],
  summary: ["summarization"],
  总结: ["summarization"],
  摘要: ["summarization"],
  implement: ["implementation"],
  实现: ["implementation"],
  开发: ["implementation"],
  bug: ["bug-fix"],
  fix: ["bug-fix"],
  修复: ["bug-fix"],
  refactor: ["refactoring"],
  重构: ["refactoring"],
  后端: ["backend"],
  server: ["backend"],
  接口: ["api"],
  db: ["database"],
  数据库: ["database"],
  py: ["python"],
  ts: ["typescript"],
  js: ["javascript"],
};

/** A word and its light stems ("tests" → "test", "reviewing" → "review", "libraries" → "library"). */
function stems(word: string): string[] {
  const out = [word];
  if (word.length > 4 && word.endsWith("ies")) out.push(`${word.slice(0, -3)}y`);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) out.push(word.slice(0, -1));
  if (word.length > 5 && word.endsWith("ing")) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  if (word.length > 4 && word.endsWith("ed")) out.push(word.slice(0, -2), word.slice(0, -1));
  return out;
}

/**
 * Tokens of a message: lowercase English words (and their stems), plus every CJK character and
 * every pair of adjacent CJK characters, since Chinese has no spaces between words.
 */
export function tokenize(text: string): string[] {
  const lower = text.normalize("NFKC").toLowerCase();
  const tokens: string[] = [];
  for (const m of lower.matchAll(/[a-z0-9][a-z0-9+#]*/g)) tokens.push(...stems(m[0]));
  for (const m of lower.matchAll(CJK_RUN)) {
    const chars = Array.from(m[0]);
    chars.forEach((c, i) => {
      tokens.push(c);
      const next = chars[i + 1];
      if (next) tokens.push(c + next);
    });
  }
  return tokens;
}

/** Does `term` occur in the message (substring for CJK terms, whole token otherwise)? */
function hasTerm(term: string, tokens: ReadonlySet<string>, lower: string): boolean {
  return CJK.test(term) ? lower.includes(term) : tokens.has(term);
}

/** The words of a tag: `code-review` → `code`, `review`; `unit_tests` → `unit`, `tests`. */
function tagWords(tag: string): string[] {
  return tag.split(/[-_./]+/).filter(Boolean);
}

/** The capability tags a message names, directly (all words of the tag) or through a synonym. */
function labelsOf(text: string, knownTags: Iterable<string>): { full: Set<string>; partial: Map<string, number> } {
  const lower = text.normalize("NFKC").toLowerCase();
  const tokens = new Set(tokenize(text));
  const full = new Set<string>();
  const partial = new Map<string, number>();
  for (const tag of knownTags) {
    if (CJK.test(tag)) {
      if (lower.includes(tag)) full.add(tag);
      continue;
    }
    const words = tagWords(tag);
    const hits = words.filter((w) => stems(w).some((s) => tokens.has(s)));
    if (hits.length === words.length && words.length > 0) full.add(tag);
    else {
      const meaningful = hits.filter((w) => !STOP_WORDS.has(w));
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

/** Scores the registry's roles against a set of labels; shared by both classifiers. */
function rank(registry: CapabilityRegistry, full: ReadonlySet<string>, partial: ReadonlyMap<string, number>, limit: number): IntentCandidate[] {
  const candidates: IntentCandidate[] = [];
  for (const role of registry.roles) {
    let score = 0;
    const fullHits: string[] = [];
    const partialHits: string[] = [];
    for (const tag of role.capabilities) {
      if (full.has(tag)) {
        score += 1;
        fullHits.push(tag);
      } else if (partial.has(tag)) {
        score += PARTIAL_WEIGHT * partial.get(tag)!;
        partialHits.push(tag);
      }
    }
    if (score > 0) candidates.push({ role_id: role.id, score: Math.round(score * 100) / 100, matched: [...fullHits, ...partialHits], state: role.state });
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
 * words of a tag, or a synonym such as 审查 → code-review); each role scores 1 per matching tag
 * and a fraction for a tag only some of whose words appear.
 */
export function classifyIntent(text: string, registry: CapabilityRegistry, options: ClassifyOptions = {}): IntentResult {
  const { full, partial } = labelsOf(text.slice(0, INTENT_READ_CHARS), registry.byTag.keys());
  return { labels: [...full].sort(), candidates: rank(registry, full, partial, options.limit ?? 5), source: "deterministic" };
}

/** What the classifier model must answer. */
export const ClassifierAnswerSchema = z.object({ labels: z.array(z.string().min(1).max(64)).max(32) });

/** Options of {@link classifyIntentWithModel}. */
export interface ModelClassifyOptions extends ClassifyOptions {
  /** Deadline of the one-shot call (default 2000 ms, the fast tier); past it the deterministic result is used. */
  timeoutMs?: number;
  signal?: AbortSignal;
  meta?: { conversation_id?: string; trace_id?: string };
}

/** The JSON object in a model answer, with or without a code fence around it. */
function extractJson(answer: string): unknown {
  // A label list is short; a long answer is not one, and the fence search below must stay linear.
  const content = answer.slice(0, 20_000);
  const fenced = /```(?:json)?([\s\S]*?)```/i.exec(content);
  const body = (fenced?.[1] ?? content).trim();
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object in the answer");
  return JSON.parse(body.slice(start, end + 1));
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
    const parsed = ClassifierAnswerSchema.safeParse(extractJson(result.content));
    if (!parsed.success) return fallback();
    const known = new Set(tags);
    const labels = new Set(parsed.data.labels.map(normalizeTag).filter((l) => known.has(l)));
    if (!labels.size) return fallback();
    return { labels: [...labels].sort(), candidates: rank(registry, labels, new Map(), options.limit ?? 5), source: "model" };
  } catch {
    return fallback();
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** `allowed_roles` of a conversation's metadata: a list of role ids, or absent. */
export const AllowedRolesSchema = z.array(RoleIdSchema).max(500);

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

/**
 * The short note added to the leader's context before its turn, e.g.
 * "Candidate roles for this request: code-reviewer (code-review, python); test-engineer (testing)."
 * Empty when nothing matched, so the leader is not nudged toward a role that does not fit.
 */
export function candidateNote(result: IntentResult): string {
  if (!result.candidates.length) return "";
  const list = result.candidates
    .map((c) => `${c.role_id} (${c.matched.join(", ")})${c.state === "IDLE" ? "" : ` [${c.state}]`}`)
    .join("; ");
  return `Candidate roles for this request: ${list}. Intent labels: ${result.labels.join(", ") || "(none)"}. Prefer these roles when you create sub-agents; only registered, authorized roles can be created.`;
}

/**
 * Text helpers of the offline model: tokenizing goals and role descriptions (English words and
 * CJK characters/bigrams), the "aspects" a goal can name, hashing, and splitting output into
 * stream-sized pieces. Pure and deterministic: no I/O, no clock, no randomness.
 */
import { parseJsonWithin } from "@/lib/input-limits";

/**
 * The sentence the offline leader appends to the first sub-agent's task when the goal is
 * ambiguous; the offline sub-agent calls `ask_master` before reporting when its task contains it.
 * Exact text: the runtime and browser tests may look for it.
 */
export const ASK_ME_SENTENCE = "If the goal is unclear to you, ask me with ask_master before you report.";

/** {@link ASK_ME_SENTENCE} in a task written in Chinese. */
export const ASK_ME_SENTENCE_ZH = "如果你觉得目标不清楚，请在汇报前用 ask_master 问我。";

/** Output language of person-facing text: the person's goal decides it. */
export type Lang = "en" | "zh";

const CJK_RE = /[\u3400-\u9fff\uf900-\ufaff]/;
const CJK_RUN_RE = /[\u3400-\u9fff\uf900-\ufaff]+/g;
const WORD_RE = /[a-z0-9][a-z0-9_-]*/g;

/** True when the text contains Chinese/Japanese ideographs. */
function hasCjk(text: string): boolean {
  return CJK_RE.test(text);
}

/** The language the leader answers a goal in. */
export function langOf(text: string): Lang {
  return hasCjk(text) ? "zh" : "en";
}

/** Picks the English or Chinese variant of a text. */
export function tr(lang: Lang, en: string, zh: string): string {
  return lang === "zh" ? zh : en;
}

/** Words that carry no meaning for matching roles or choosing a search keyword. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but nor for of to in on at by with from into onto about as if then than so not no " +
    "it its is are was were be been being this that these those there here how what which who whom whose why when where " +
    "do does did done can could should would will shall may might must me my mine we our ours you your yours i " +
    "he she they them their his her please just also using use used per each every all any both either " +
    "up out over under again only very too let lets get got make made help want need like some one two " +
    "s t ll re ve d m etc via within without"
  ).split(/\s+/),
);

/** Words that make a goal vague (the ambiguity rule of the offline leader). */
export const VAGUE_WORDS: ReadonlySet<string> = new Set([
  "something",
  "some",
  "stuff",
  "whatever",
  "maybe",
  "improve",
  "improved",
  "improving",
  "improvement",
  "improvements",
  "better",
  "anything",
  "things",
  "thing",
]);

/** Chinese vague terms; matched as substrings because Chinese has no word breaks. */
const VAGUE_CJK: readonly string[] = ["优化", "改进", "一些", "随便", "看看", "弄一下", "搞一下"];

/** Ideographs that are grammar rather than content; they split CJK runs for counting. */
const CJK_STOP_CHARS = new Set(Array.from("的了是和与及在把个一我你他她它们这那吗呢吧啊请帮给对也都就要会能让并或被将从为些"));

/**
 * A light English stemmer, so "issues" meets "issue" and "reviews" meets "review". Deliberately
 * crude: both sides of every comparison go through it, so consistency matters more than accuracy.
 */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/** Lower-cased English words of a text, in order, stop words kept. Hyphenated words stay whole. */
export function englishWords(text: string): string[] {
  return text.toLowerCase().match(WORD_RE) ?? [];
}

/** CJK runs of a text, split at grammar characters (的, 一, 个 …). */
function cjkRuns(text: string): string[] {
  const runs: string[] = [];
  for (const run of text.match(CJK_RUN_RE) ?? []) {
    let current = "";
    for (const ch of Array.from(run)) {
      if (CJK_STOP_CHARS.has(ch)) {
        if (current) runs.push(current);
        current = "";
      } else current += ch;
    }
    if (current) runs.push(current);
  }
  return runs;
}

/**
 * Matching tokens of a text: stemmed English words without stop words (hyphenated words also
 * contribute their parts), plus CJK characters and bigrams of content runs.
 */
export function tokenize(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of englishWords(text)) {
    for (const part of [w, ...(w.includes("-") || w.includes("_") ? w.split(/[-_]/) : [])]) {
      if (!part || STOP_WORDS.has(part)) continue;
      out.add(stem(part));
    }
  }
  for (const run of cjkRuns(text)) {
    const chars = Array.from(run);
    chars.forEach((c, i) => {
      out.add(c);
      const next = chars[i + 1];
      if (next !== undefined) out.add(c + next);
    });
  }
  return out;
}

/**
 * How many words of substance a goal has: English non-stop words, plus for each CJK content run
 * its bigram count (a lone character counts once). Vague words do not count.
 */
function substanceCount(text: string): number {
  const words = englishWords(text).filter((w) => !STOP_WORDS.has(w) && !VAGUE_WORDS.has(w));
  let cjk = 0;
  for (const run of cjkRuns(text)) {
    if (VAGUE_CJK.some((v) => run === v)) continue;
    cjk += Math.max(1, Array.from(run).length - 1);
  }
  return words.length + cjk;
}

/** The ambiguity rule: fewer than 5 words of substance, or any vague word. */
export function isAmbiguousGoal(goal: string): boolean {
  if (substanceCount(goal) < 5) return true;
  if (englishWords(goal).some((w) => VAGUE_WORDS.has(w) || w.startsWith("improv"))) return true;
  return VAGUE_CJK.some((v) => goal.includes(v));
}

/** A kind of work a goal can ask for; each maps to capability tags of the role library. */
export interface Aspect {
  key: "review" | "ui" | "research" | "testing" | "docs" | "implementation";
  /** Capability tags of roles that do this kind of work. */
  tags: readonly string[];
  /** Goal words that name this kind of work (English words are stemmed; CJK terms are substrings). */
  terms: readonly string[];
  /** Words in a role's name that reveal this kind of role ("Reviewer", "Writer"). */
  roleWords: readonly string[];
}

/**
 * The synonym table. Order matters twice: ties between aspects go to the earlier one (so a "Test
 * Engineer" is a tester before an implementer), and it is the fallback order of team members.
 */
export const ASPECTS: readonly Aspect[] = [
  {
    key: "review",
    tags: ["code-review", "security-review", "diff-analysis"],
    terms: ["review", "audit", "security", "secure", "vulnerability", "vulnerable", "inspect", "审查", "检查", "审核", "评审", "安全", "漏洞"],
    roleWords: ["reviewer", "auditor", "review", "security"],
  },
  {
    key: "ui",
    tags: ["ui-design", "frontend", "color-scheme", "css", "html", "responsive-design", "accessibility", "react"],
    terms: [
      "ui", "ux", "frontend", "front-end", "design", "page", "layout", "color", "colour", "palette", "css", "style", "styling",
      "theme", "responsive", "accessibility", "a11y", "前端", "页面", "界面", "设计", "配色", "颜色", "样式", "布局", "主题",
    ],
    roleWords: ["ui", "ux", "designer", "frontend", "front", "operator"],
  },
  {
    key: "research",
    tags: ["research", "analysis", "codebase-exploration", "comparison"],
    terms: [
      "research", "investigate", "investigation", "compare", "comparison", "analyze", "analyse", "analysis", "explore",
      "understand", "evaluate", "调研", "研究", "分析", "调查", "比较", "对比", "评估", "了解",
    ],
    roleWords: ["researcher", "analyst", "research"],
  },
  {
    key: "testing",
    tags: ["testing", "unit-tests", "integration-tests", "e2e", "regression"],
    terms: ["test", "testing", "coverage", "regression", "e2e", "qa", "测试", "覆盖", "用例"],
    roleWords: ["test", "tester", "qa"],
  },
  {
    key: "docs",
    tags: ["documentation", "readme", "api-docs", "tutorials", "changelog"],
    terms: ["doc", "docs", "documentation", "document", "readme", "guide", "tutorial", "changelog", "manual", "文档", "说明", "教程", "手册"],
    roleWords: ["writer", "documentation", "docs"],
  },
  {
    key: "implementation",
    tags: ["implementation", "bug-fix", "refactoring", "backend", "api"],
    terms: [
      "bug", "fix", "implement", "implementation", "feature", "build", "add", "refactor", "endpoint", "crash", "实现", "修复",
      "开发", "功能", "重构", "新增", "添加",
    ],
    roleWords: ["engineer", "developer", "programmer", "stack", "coder"],
  },
];

/** First index of each stemmed English word of a lower-cased text: one pass over the text. */
function wordPositions(lower: string): Map<string, number> {
  const at = new Map<string, number>();
  const re = /[a-z0-9][a-z0-9_-]*/g;
  for (let m = re.exec(lower); m; m = re.exec(lower)) {
    const s = stem(m[0]);
    if (!at.has(s)) at.set(s, m.index);
  }
  return at;
}

/** Where in the text each aspect is first named (-1: not named), in the order of `aspects`: the team is ordered like the goal. */
export function aspectPositions(aspects: readonly Aspect[], text: string): number[] {
  const lower = text.toLowerCase();
  // The words are indexed once, not once per term: a long goal times many terms adds up.
  const words = wordPositions(lower);
  return aspects.map((aspect) => {
    let best = -1;
    for (const term of aspect.terms) {
      const at = hasCjk(term) ? lower.indexOf(term) : (words.get(stem(term)) ?? -1);
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best;
  });
}

/** 32-bit FNV-1a of a string as 8 hex digits: cheap, stable across runs and platforms. */
export function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** Shortens a one-line text to `max` characters with an ellipsis; collapses whitespace. */
export function clip(text: string, max: number): string {
  // Only the start can show; a bounded slice keeps the work small for a huge text (a 1 MB report).
  const limit = max * 8 + 16;
  const cut = text.length > limit;
  const flat = (cut ? text.slice(0, limit) : text).replace(/\s+/g, " ").trim();
  const chars = Array.from(flat);
  return chars.length <= max && !cut ? flat : `${chars.slice(0, Math.max(1, max - 1)).join("").trimEnd()}…`;
}

/**
 * Splits text into stream pieces of a few words each (whitespace kept, so the pieces concatenate
 * back exactly). Long unbroken runs (CJK, URLs) are cut every 8 characters.
 */
export function chunkText(text: string, wordsPerChunk = 3): string[] {
  const pieces = text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
  const out: string[] = [];
  let current = "";
  let words = 0;
  for (const piece of pieces) {
    const chars = Array.from(piece);
    if (chars.length > 16) {
      if (current) out.push(current);
      current = "";
      words = 0;
      for (let i = 0; i < chars.length; i += 8) out.push(chars.slice(i, i + 8).join(""));
      continue;
    }
    current += piece;
    words++;
    if (words >= wordsPerChunk) {
      out.push(current);
      current = "";
      words = 0;
    }
  }
  if (current) out.push(current);
  // Leading whitespace not caught by the pattern (text that is only whitespace) is kept whole.
  if (out.join("") !== text) return text ? [text] : [];
  return out;
}

/** Splits JSON argument text into pieces of about `size` characters (by code point). */
export function chunkArguments(text: string, size = 24): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out.length ? out : [""];
}

/** Parses JSON text, or returns undefined. */
export function parseJson(text: string | null | undefined): unknown {
  if (typeof text !== "string") return undefined;
  // JSON from the conversation (another model's arguments, tool results): nesting is checked first
  const result = parseJsonWithin(text, Number.POSITIVE_INFINITY);
  return result.ok ? result.value : undefined;
}

/** True for a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string field of an object, or undefined. */
export function str(value: unknown, key: string): string | undefined {
  if (!isRecord(value)) return undefined;
  const v = value[key];
  return typeof v === "string" ? v : undefined;
}

/** Joins names as "a, b and c" (or "a、b 和 c"). */
export function joinList(items: readonly string[], lang: Lang = "en"): string {
  if (items.length <= 1) return items[0] ?? "";
  const head = items.slice(0, -1).join(lang === "zh" ? "、" : ", ");
  return `${head}${lang === "zh" ? " 和 " : " and "}${items[items.length - 1]}`;
}

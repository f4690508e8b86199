/**
 * The offline sub-agent. It works like a careful person new to the project: list the folder (and
 * any folder or file the goal names), search for the goal's most specific word, read the files
 * that matter for the goal — the README, the manifest, entry points, tests, and paths whose names
 * match the goal's words or the search hits — within a read budget, ask the leader when its task
 * says the goal is unclear, then report what it actually found.
 *
 * It keeps its progress in state it controls: after each call it writes what the results showed
 * as `NOTE:` lines, which the runtime keeps in its private notes (lib/models/offline/known.ts), and
 * a step count. The context window may leave old results out; the notes stay, so it never loses
 * track, never makes the same call twice, and reports within {@link MAX_STEPS} model calls.
 */
import { isPlaceholderText } from "@/lib/context/types";
import { parseAgentMessage } from "@/lib/contracts/messages";
import type { ChatMessage, ChatRequest } from "@/lib/models/types";
import { extOf, fileKind, isTestPath } from "./files";
import { textOf, toolNames, type OfflineDecision } from "./history";
import { callKey, knownState, normalPath, type Entry, type Known } from "./known";
import { stepNote } from "./notes";
import { report, type RoleKind } from "./sub-agent-report";
import { ASK_ME_SENTENCE, ASPECTS, STOP_WORDS, VAGUE_WORDS, clip, englishWords, joinList, tokenize } from "./text";

/** Model calls for one task, the report included: the agent reports by then whatever it has. */
export const MAX_STEPS = 10;
/** Files read for one task. */
const MAX_READS = 8;
/** Files read in one call. */
const READS_PER_STEP = 3;
/**
 * Characters of the files read in one call, when their sizes are known: about what the context
 * window's default scene budget keeps of one item (half of 3,000 tokens) without cutting it.
 */
const READ_STEP_CHARS = 5_000;
/** The size assumed for a file whose size no listing in view gave. */
const UNKNOWN_SIZE = 2_000;
/** Folders listed for one task. */
const MAX_LISTS = 4;
/** Searches for one task. */
const MAX_SEARCHES = 3;

/** Words too general to search for: they would match everywhere or nowhere useful. */
const GENERIC_WORDS = new Set([
  "code", "codebase", "project", "app", "application", "file", "files", "folder", "repo", "repository", "page", "pages",
  "team", "goal", "work", "task", "report", "look", "check", "review", "research", "investigate", "write", "docs", "doc",
  "documentation", "document", "test", "tests", "testing", "fix", "implement", "design", "add", "update", "create", "new",
  "issue", "issues", "problem", "problems", "scheme", "plan", "system", "part", "way", "find", "explain", "describe",
  "security", "quality", "current", "existing", "whole", "entire", "module", "modules", "feature", "features", "analyze",
  "analyse", "compare", "study", "understand", "show", "tell", "give", "propose", "proposal", "build", "refactor", "audit",
]);

/** Chinese terms and the English word a code search should use for them. */
const CJK_KEYWORDS: ReadonlyArray<[string, string]> = [
  ["配色", "color"], ["颜色", "color"], ["样式", "style"], ["字体", "font"], ["布局", "layout"], ["按钮", "button"],
  ["表单", "form"], ["导航", "nav"], ["登录", "login"], ["认证", "auth"], ["鉴权", "auth"], ["密码", "password"],
  ["数据库", "database"], ["存储", "storage"], ["数据", "data"], ["接口", "api"], ["配置", "config"], ["错误", "error"],
  ["性能", "performance"], ["缓存", "cache"], ["路由", "route"], ["首页", "index"], ["日志", "log"], ["权限", "permission"],
];

/** What to search for when the goal names nothing specific, per kind of agent. */
const DEFAULT_KEYWORD: Record<RoleKind, string> = {
  review: "TODO",
  ui: "color",
  research: "export",
  testing: "test",
  docs: "TODO",
  implementation: "TODO",
  generic: "TODO",
};

/** What a vague goal could mean for each kind of agent; offered to the person as choices. */
const FOCUS_OPTIONS: Record<RoleKind, string> = {
  review: "security, correctness, or maintainability",
  ui: "the layout, the colors, or accessibility",
  research: "how it works today, where it lives, or which option fits best",
  testing: "unit tests, integration tests, or end-to-end tests",
  docs: "setup instructions, an API reference, or a changelog",
  implementation: "a bug fix, a new feature, or a refactoring",
  generic: "the structure, the code quality, or the documentation",
};

const SKIP_DIRS = new Set(["node_modules", ".git", "dist", "build", "out", "coverage", ".next", "vendor", "target", "__pycache__", ".venv", "venv"]);
const SKIP_FILES = /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb|cargo\.lock|poetry\.lock|go\.sum)$|\.(png|jpe?g|gif|ico|webp|bmp|svg|woff2?|ttf|otf|eot|pdf|zip|gz|tgz|tar|mp3|mp4|mov|exe|dll|so|dylib|bin|wasm|map)$|\.min\.(js|css)$/i;

/** The parts of a sub-agent's situation every step looks at. */
interface Situation {
  self: string;
  roleName: string;
  kind: RoleKind;
  task: string;
  goal: string;
  taskIdx: number;
  messages: Array<{ sender: string; body: string }>;
  askFirst: boolean;
}

function roleKind(roleName: string, task: string): RoleKind {
  const words = englishWords(roleName);
  for (const a of ASPECTS) if (a.roleWords.some((w) => words.includes(w))) return a.key;
  // A task written by the offline leader says "As the {Role}, …"; otherwise judge by the task's words.
  const named = /\bAs the ([^,\n]+),/.exec(task)?.[1];
  if (named) {
    const nw = englishWords(named);
    for (const a of ASPECTS) if (a.roleWords.some((w) => nw.includes(w))) return a.key;
  }
  const tokens = tokenize(task);
  let best: RoleKind = "generic";
  let bestScore = 0;
  for (const a of ASPECTS) {
    const s = a.terms.filter((t) => tokens.has(t)).length;
    if (s > bestScore) {
      best = a.key;
      bestScore = s;
    }
  }
  return best;
}

function situation(messages: readonly ChatMessage[]): Situation {
  const system = messages.find((m) => m.role === "system");
  // "You are: UI Operator_1 (agent id 3, role UI Operator)." — the runtime may add details in parentheses.
  const line = /^You are:\s*(.+)$/m.exec(textOf(system))?.[1]?.trim() ?? "";
  const self = line.replace(/\s*\(.*$/, "").replace(/[.。]$/, "").trim() || "Sub-agent";
  const roleName = /\brole ([^)]+)\)/.exec(line)?.[1]?.trim() || self.replace(/_\d+$/, "");
  let taskIdx = -1;
  let task = "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    const parsed = parseAgentMessage(textOf(m));
    if (parsed?.kind === "task") {
      taskIdx = i;
      task = parsed.body;
      break;
    }
  }
  if (taskIdx < 0) {
    // No seed-format task: the first plain user message is the task.
    taskIdx = messages.findIndex((m) => m.role === "user");
    task = taskIdx >= 0 ? textOf(messages[taskIdx]) : "";
  }
  const goal = /^Goal:\s*"(.*)"\s*$/m.exec(task)?.[1] ?? task.replace(ASK_ME_SENTENCE, "").trim();
  const inbound: Situation["messages"] = [];
  for (let i = taskIdx + 1; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    const parsed = parseAgentMessage(textOf(m));
    if (parsed && parsed.kind !== "task") inbound.push({ sender: parsed.sender, body: parsed.body });
    // the context window's stand-in for messages it left out is nobody's message
    else if (!parsed && textOf(m).trim() && !isPlaceholderText(textOf(m))) inbound.push({ sender: "the person", body: textOf(m) });
  }
  return {
    self,
    roleName,
    kind: roleKind(roleName, task),
    task,
    goal,
    taskIdx,
    messages: inbound,
    askFirst: task.includes(ASK_ME_SENTENCE),
  };
}

/** Candidate search words of a goal, most specific first. */
function keywordCandidates(goal: string, kind: RoleKind): string[] {
  const words = englishWords(goal)
    .map((w) => w.replace(/^[-_]+|[-_]+$/g, ""))
    .filter((w) => w.length >= 3 && !STOP_WORDS.has(w) && !VAGUE_WORDS.has(w) && !GENERIC_WORDS.has(w) && !/^\d+$/.test(w));
  const out: string[] = [];
  const added = new Set<string>();
  const add = (w: string) => {
    if (w && !added.has(w)) {
      added.add(w);
      out.push(w);
    }
  };
  // Longest first: long words are usually the specific ones ("authentication" over "data"); ties
  // in goal order (first positions looked up once, not searched for in every comparison).
  const firstAt = new Map<string, number>();
  words.forEach((w, i) => {
    if (!firstAt.has(w)) firstAt.set(w, i);
  });
  [...firstAt.keys()].sort((a, b) => b.length - a.length || firstAt.get(a)! - firstAt.get(b)!).forEach((w) => add(w.endsWith("s") && w.length > 4 && !w.endsWith("ss") ? w.slice(0, -1) : w));
  const cjk = CJK_KEYWORDS.filter(([zh]) => goal.includes(zh)).sort((a, b) => goal.indexOf(a[0]) - goal.indexOf(b[0]));
  for (const [, en] of cjk) add(en);
  // A long word's stem finds its relatives ("authentication" → "auth").
  const first = out[0];
  if (first && first.length >= 8) add(first.slice(0, 4));
  if (out.length === 0) add(DEFAULT_KEYWORD[kind]);
  return out;
}

function nameTokens(path: string): string[] {
  return path
    .toLowerCase()
    .replace(/\.[a-z0-9]+$/, "")
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length >= 3);
}

function overlap(path: string, taskTokens: ReadonlySet<string>): number {
  let n = 0;
  for (const t of nameTokens(path)) {
    if (taskTokens.has(t)) n += 3;
    else if (t.length >= 4 && [...taskTokens].some((w) => w.length >= 4 && (w.startsWith(t) || t.startsWith(w)))) n += 2;
  }
  return n;
}

/** How worth reading a file is for this agent; null for files never read (lock files, binaries, dotfiles, huge files). */
function fileScore(e: Entry, kind: RoleKind, taskTokens: ReadonlySet<string>): number | null {
  const segments = e.path.split("/");
  if (segments.some((s) => s.startsWith(".") || SKIP_DIRS.has(s))) return null;
  if (SKIP_FILES.test(e.path) || (e.size ?? 0) > 200_000) return null;
  const fk = fileKind(e.path);
  const ext = extOf(e.path);
  let score = 0;
  if (fk === "readme") score += 4;
  if (fk === "manifest") score += 3;
  if (fk === "source") score += 1;
  if (kind === "ui" && (fk === "markup" || fk === "style" || ["tsx", "jsx", "vue", "svelte"].includes(ext))) score += 4;
  if (kind === "docs" && (fk === "readme" || fk === "doc")) score += 3;
  if (kind === "testing" && isTestPath(e.path)) score += 3;
  if (kind === "testing" && /(vitest|jest|playwright|pytest|karma)\.config|^pytest\.ini$|conftest\.py$/.test(e.path)) score += 2;
  if ((kind === "review" || kind === "implementation" || kind === "research") && fk === "source" && !isTestPath(e.path)) score += 2;
  score += overlap(e.path, taskTokens);
  return score - 0.5 * (segments.length - 1);
}

function dirScore(e: Entry, kind: RoleKind, taskTokens: ReadonlySet<string>): number | null {
  const base = e.path.split("/").pop() ?? e.path;
  if (base.startsWith(".") || SKIP_DIRS.has(base)) return null;
  let score = overlap(e.path, taskTokens);
  if (["src", "app", "lib", "source", "server", "api"].includes(base)) score += 2;
  if (kind === "ui" && ["public", "static", "styles", "components", "pages", "web", "client", "frontend"].includes(base)) score += 3;
  if (kind === "docs" && ["docs", "doc", "documentation", "guide"].includes(base)) score += 3;
  if (kind === "testing" && ["test", "tests", "__tests__", "spec", "e2e"].includes(base)) score += 3;
  return score;
}

/** Files that start a program: worth reading to see how the parts fit. */
const ENTRY_POINT = /(^|\/)(index|main|app|server|cli|mod|lib|__init__|__main__)\.[a-z0-9]+$/i;

/** Folders and files the goal names (`lib/store`, `src/auth.ts`), in goal order. */
function goalPaths(goal: string): string[] {
  const out: string[] = [];
  for (const m of goal.matchAll(/(?:^|[\s"'`(])((?:\.{0,2}\/)?[\w@.-]+(?:\/[\w@.-]+)+\/?|[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|java|rb|php|md|json|ya?ml|toml|css|html|sh))(?=$|[\s"'`),.;:!?])/g)) {
    const p = normalPath(m[1]!.replace(/[.,;:]+$/, ""));
    if (p !== "." && !p.startsWith("..") && !out.includes(p)) out.push(p);
  }
  return out.slice(0, 3);
}

/** Whether `path` lies inside (or is) one of `dirs`. */
function within(path: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => path === d || path.startsWith(`${d}/`));
}

/** Scores of the files and folders of a listing for this agent and goal. */
function scorer(kind: RoleKind, goal: string, hits: ReadonlyMap<string, number>) {
  const taskTokens = tokenize(goal);
  const named = goalPaths(goal);
  // The goal's specific words in a file's own name are the strongest sign it is the one meant.
  const words = keywordCandidates(goal, kind).slice(0, 4);
  return {
    file(e: Entry): number | null {
      const base = fileScore(e, kind, taskTokens);
      if (base === null) return null;
      let s = base;
      const name = (e.path.split("/").pop() ?? "").toLowerCase();
      if (words.some((w) => w.length >= 4 && name.includes(w.toLowerCase()))) s += 5;
      if (within(e.path, named)) s += 6;
      if (ENTRY_POINT.test(e.path) && fileKind(e.path) === "source") s += 2;
      if (isTestPath(e.path)) s += kind === "testing" ? 1 : 0.5;
      return s + Math.min(6, 2 * (hits.get(e.path) ?? 0));
    },
    dir(e: Entry): number | null {
      const base = dirScore(e, kind, taskTokens);
      if (base === null) return null;
      return base + (named.some((n) => n === e.path || n.startsWith(`${e.path}/`)) ? 8 : 0);
    },
  };
}

/** The entries a listing's note keeps: the most relevant files and folders, and the tests seen. */
function pickerFor(kind: RoleKind, goal: string) {
  const score = scorer(kind, goal, new Map());
  return (entries: readonly Entry[]) => {
    const ranked = (type: string, f: (e: Entry) => number | null, n: number) =>
      entries
        .map((e, i) => ({ e, i, s: e.type === type ? f(e) : null }))
        .filter((x): x is { e: Entry; i: number; s: number } => x.s !== null)
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, n)
        .map((x) => x.e.path);
    // at most half of the files kept are tests, so the code under test is kept too
    const files: string[] = [];
    let tests = 0;
    for (const f of ranked("file", (e) => score.file(e), entries.length)) {
      if (files.length >= 6) break;
      if (isTestPath(f) && tests >= 3) continue;
      if (isTestPath(f)) tests++;
      files.push(f);
    }
    return { dirs: ranked("dir", (e) => score.dir(e), 4), files, tests: entries.filter((e) => e.type === "file" && isTestPath(e.path)).slice(0, 3).map((e) => e.path) };
  };
}

function call(name: string, args: Record<string, unknown>) {
  return { name, args };
}

/** The next calls: what is left to look at, most relevant first; [] when it is time to report. */
function plan(s: Situation, k: Known, offered: ReadonlySet<string>, keywords: readonly string[]): Array<{ name: string; args: Record<string, unknown> }> {
  const out: Array<{ name: string; args: Record<string, unknown> }> = [];
  const add = (name: string, args: Record<string, unknown>) => {
    if (!offered.has(name)) return false;
    const key = callKey(name, args);
    if (k.done.has(key) || out.some((c) => callKey(c.name, c.args) === key)) return false;
    out.push(call(name, args));
    return true;
  };
  const count = (prefix: string) => [...k.done].filter((d) => d.startsWith(prefix)).length;
  const named = goalPaths(s.goal || s.task);

  // The top level alone first: it is small, so the context window never cuts it, and it says
  // where the README and the manifest are.
  if (!k.done.has("listed .")) {
    add("list_files", { path: "." });
    for (const p of named) if (/\.[a-z0-9]+$/i.test(p)) add("read_file", { path: p });
    return out;
  }
  // Then what the goal names (a folder is listed), and a search for its most specific word —
  // where the goal points, when it names a folder.
  for (const p of named) add(/\.[a-z0-9]+$/i.test(p) ? "read_file" : "list_files", { path: p });
  const goalDir = named.find((p) => !/\.[a-z0-9]+$/i.test(p));
  if (keywords[0] && k.searches.length === 0 && !k.failed.some((f) => f.key.startsWith("searched"))) add("search_files", goalDir ? { query: keywords[0], path: goalDir } : { query: keywords[0] });

  const hits = new Map<string, number>();
  for (const q of k.searches) for (const h of q.hits) hits.set(h.path, (hits.get(h.path) ?? 0) + 1);
  const score = scorer(s.kind, s.goal || s.task, hits);
  // Candidates: every entry in view, the files the notes kept from earlier listings, search hits.
  const seen = new Map<string, Entry>();
  for (const e of k.entries) seen.set(e.path, e);
  for (const l of k.listings) {
    for (const f of l.files) if (!seen.has(f)) seen.set(f, { path: f, type: "file" });
    for (const d of l.dirs) if (!seen.has(d)) seen.set(d, { path: d, type: "dir" });
  }
  for (const p of hits.keys()) if (!seen.has(p)) seen.set(p, { path: p, type: "file" });
  const ranked = (type: string) =>
    [...seen.values()]
      .map((e, i) => ({ e, i, s: e.type === type ? (type === "file" ? score.file(e) : score.dir(e)) : null }))
      .filter((x): x is { e: Entry; i: number; s: number } => x.s !== null)
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((x) => x.e.path);

  const readsLeft = MAX_READS - count("read ");
  // A top level too long to list whole may hide its README: look for it by name.
  const rootListing = k.listings.find((l) => l.path === ".");
  if (rootListing?.omitted && ![...seen.keys()].some((p) => !p.includes("/") && fileKind(p) === "readme")) seen.set("README.md", { path: "README.md", type: "file" });
  // The README and the manifest say what the project claims and how it is tested: read first.
  const basics = [...seen.values()].filter((e) => e.type === "file" && !e.path.includes("/") && ["readme", "manifest"].includes(fileKind(e.path))).map((e) => e.path);
  // A step's reads share one scene item: files that together fit its share are read together, so
  // the context window need not cut them (the first is read whatever its size).
  let planned = 0;
  for (const path of [...basics, ...ranked("file")]) {
    if (out.length >= Math.min(READS_PER_STEP, readsLeft)) break;
    const size = seen.get(path)?.size ?? UNKNOWN_SIZE;
    if (out.length > 0 && planned + size > READ_STEP_CHARS) continue;
    if (add("read_file", { path })) planned += size;
  }
  if (count("listed ") < MAX_LISTS) {
    const listed = [...k.done, ...out.map((c) => callKey(c.name, c.args))].filter((d) => d.startsWith("listed ")).map((d) => d.slice(7));
    // a folder already listed, or one above a folder already listed, shows nothing new
    const dir = ranked("dir").find((d) => !listed.some((l) => l === d || l.startsWith(`${d}/`)));
    const dirScoreNow = dir ? (score.dir({ path: dir, type: "dir" }) ?? 0) : 0;
    // Descend when the folder is clearly where the goal points, or nothing here is worth reading.
    if (dir && (dirScoreNow >= 2 || out.length === 0)) add("list_files", { path: dir });
  }
  const searches = k.searches.length + k.failed.filter((f) => f.key.startsWith("searched")).length;
  if (searches < MAX_SEARCHES && !out.some((c) => c.name === "search_files") && k.searches.every((q) => q.matches === 0)) {
    const next = keywords.find((w) => !k.done.has(callKey("search_files", { query: w })));
    // a retry looks in the whole project: the word may live outside the folder the goal names
    if (next) add("search_files", { query: next });
  }
  return out;
}

/** Decides the offline sub-agent's answer to one request. */
export function decideSubAgent(req: ChatRequest): OfflineDecision {
  const s = situation(req.messages);
  const offered = toolNames(req.tools);
  const goal = s.goal || s.task;
  const k = knownState(req.messages, s.taskIdx, pickerFor(s.kind, goal));

  // Already reported: answer briefly, never report twice unless the report itself failed.
  if (k.reported && !(k.reported.error && k.reported.count < 2)) {
    const after = req.messages.slice(k.reported.at + 1).some((m) => m.role === "user");
    return {
      reasoning: "My report is already with the Team Leader.",
      content: after ? "Noted. My report is already with the Team Leader; send me a new task if you need more from me." : "My report is with the Team Leader.",
      toolCalls: [],
    };
  }
  const step = k.step + 1;
  const notes = [...k.fresh, stepNote(step, MAX_STEPS)].map((n) => `NOTE: ${n}`);
  const withNotes = (d: OfflineDecision): OfflineDecision => ({ ...d, content: [d.content, "", ...notes].join("\n") });
  const wrapUp = k.reported || step >= MAX_STEPS;
  const keywords = keywordCandidates(goal, s.kind);
  const next = wrapUp ? [] : plan(s, k, offered, keywords);

  if (next.length > 0) {
    const reads = next.filter((c) => c.name === "read_file").map((c) => `\`${String(c.args.path)}\``);
    const lists = next.filter((c) => c.name === "list_files").map((c) => `\`${String(c.args.path)}\``);
    const searches = next.filter((c) => c.name === "search_files").map((c) => `"${String(c.args.query)}"`);
    const parts = [lists.length ? `listing ${joinList(lists)}` : "", reads.length ? `reading ${joinList(reads)}` : "", searches.length ? `searching for ${joinList(searches)}` : ""].filter(Boolean);
    const sentence = parts.join(", ");
    return withNotes({
      reasoning: `Step ${step}: ${k.files.length} file${k.files.length === 1 ? "" : "s"} read so far; next, ${sentence} — the most relevant to "${clip(goal, 80)}" that I have not looked at.`,
      content: `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`,
      toolCalls: next,
    });
  }

  if (s.askFirst && offered.has("ask_master") && !k.done.has("asked") && !wrapUp) {
    const shown = k.files.map((f) => f.path);
    const found = shown.length ? `I found ${joinList(shown.slice(0, 4).map((p) => p.split("/").pop() ?? p))}` : "The project folder looks empty";
    const question = `The goal says "${clip(s.goal, 160)}". ${found}. Should I focus on ${FOCUS_OPTIONS[s.kind]}?`;
    return withNotes({
      reasoning: "My task says the goal may be unclear and to ask first; the answer decides where my report should focus.",
      content: "Asking the Team Leader to narrow the goal down before I report.",
      toolCalls: [call("ask_master", { question })],
    });
  }

  return report({ roleName: s.roleName, kind: s.kind, goal: s.goal, messages: s.messages }, k, offered);
}

/**
 * The offline sub-agent. It works like a careful person new to the project: list the folder, read
 * the few files that matter for the task, search for the task's most specific word, ask the
 * leader when its task says the goal is unclear, then report what it actually found. Each call
 * re-reads its own history to know which step it is at; it never touches files itself.
 */
import { parseAgentMessage } from "@/lib/protocol/messages";
import type { ChatMessage, ChatRequest } from "../types";
import { describeFile, extOf, fileKind, isTestPath, type FileFacts, type Flag } from "./files";
import { pastCalls, textOf, toolNames, type OfflineDecision, type PastCall } from "./history";
import {
  ASK_ME_SENTENCE,
  ASPECTS,
  STOP_WORDS,
  VAGUE_WORDS,
  clip,
  englishWords,
  isRecord,
  joinList,
  str,
  tokenize,
  type Aspect,
} from "./text";

/** After this many tool calls the sub-agent reports whatever it has: it must never loop. */
export const MAX_TOOL_CALLS = 8;

type RoleKind = Aspect["key"] | "generic";

interface Entry {
  path: string;
  type: string;
  size?: number;
}

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
  calls: PastCall[];
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
    else if (!parsed && textOf(m).trim()) inbound.push({ sender: "the person", body: textOf(m) });
  }
  return {
    self,
    roleName,
    kind: roleKind(roleName, task),
    task,
    goal,
    calls: pastCalls(messages, taskIdx),
    messages: inbound,
    askFirst: task.includes(ASK_ME_SENTENCE),
  };
}

function entriesOf(calls: readonly PastCall[]): Entry[] {
  const seen = new Map<string, Entry>();
  for (const c of calls) {
    if (c.name !== "list_files" || c.error || !isRecord(c.result) || !Array.isArray(c.result.entries)) continue;
    for (const e of c.result.entries) {
      const path = str(e, "path");
      const type = str(e, "type");
      if (!path || !type || seen.has(path)) continue;
      const size = isRecord(e) && typeof e.size === "number" ? e.size : undefined;
      seen.set(path, { path, type, size });
    }
  }
  return [...seen.values()];
}

/** Candidate search words of a goal, most specific first. */
export function keywordCandidates(goal: string, kind: RoleKind): string[] {
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

function pickFiles(entries: readonly Entry[], kind: RoleKind, taskTokens: ReadonlySet<string>): string[] {
  return entries
    .map((e, i) => ({ e, i, s: e.type === "file" ? fileScore(e, kind, taskTokens) : null }))
    .filter((x): x is { e: Entry; i: number; s: number } => x.s !== null)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, 3)
    .map((x) => x.e.path);
}

function pickDir(entries: readonly Entry[], kind: RoleKind, taskTokens: ReadonlySet<string>): string | undefined {
  return entries
    .map((e, i) => ({ e, i, s: e.type === "dir" ? dirScore(e, kind, taskTokens) : null }))
    .filter((x): x is { e: Entry; i: number; s: number } => x.s !== null)
    .sort((a, b) => b.s - a.s || a.i - b.i)[0]?.e.path;
}

function searchMatches(c: PastCall): Array<{ path: string; line: number; text: string }> {
  if (c.error || !isRecord(c.result) || !Array.isArray(c.result.matches)) return [];
  return c.result.matches.flatMap((m) => {
    const path = str(m, "path");
    const line = isRecord(m) && typeof m.line === "number" ? m.line : undefined;
    return path && line !== undefined ? [{ path, line, text: str(m, "text") ?? "" }] : [];
  });
}

function call(name: string, args: Record<string, unknown>) {
  return { name, args };
}

/** Decides the offline sub-agent's answer to one request. */
export function decideSubAgent(req: ChatRequest): OfflineDecision {
  const s = situation(req.messages);
  const offered = toolNames(req.tools);
  const { calls } = s;

  // Already reported: answer briefly, never report twice unless the report itself failed.
  const reports = calls.filter((c) => c.name === "report_to_leader");
  const lastReport = reports[reports.length - 1];
  if (lastReport && !(lastReport.error && reports.length < 2)) {
    const after = req.messages.slice(lastReport.at + 1).some((m) => m.role === "user");
    return {
      reasoning: "My report is already with the Team Leader.",
      content: after
        ? "Noted. My report is already with the Team Leader; send me a new task if you need more from me."
        : "My report is with the Team Leader.",
      toolCalls: [],
    };
  }
  if (lastReport || calls.length >= MAX_TOOL_CALLS) return report(s, offered);

  const lists = calls.filter((c) => c.name === "list_files");
  if (lists.length === 0 && offered.has("list_files")) {
    return {
      reasoning: "I'll start with the project layout, so I read the files that matter instead of guessing.",
      content: "Looking at the project layout.",
      toolCalls: [call("list_files", { path: "." })],
    };
  }

  const taskTokens = tokenize(s.goal || s.task);
  const entries = entriesOf(calls);
  const reads = calls.filter((c) => c.name === "read_file");
  const searches = calls.filter((c) => c.name === "search_files");
  const keywords = keywordCandidates(s.goal || s.task, s.kind);

  if (reads.length === 0 && searches.length === 0) {
    const topFiles = entries.filter((e) => e.type === "file" && !e.path.includes("/"));
    const nested = entries.some((e) => e.path.includes("/"));
    const dir = !nested && lists.length === 1 ? pickDir(entries, s.kind, taskTokens) : undefined;
    const dirWorth = dir ? (dirScore({ path: dir, type: "dir" }, s.kind, taskTokens) ?? 0) : 0;
    // Descend one level when the top level has nothing but folders, or a folder clearly holds the
    // code this role cares about (src/, public/ for UI…): top-level files alone rarely answer a task.
    if (dir && offered.has("list_files") && (topFiles.length === 0 || dirWorth >= 2)) {
      return {
        reasoning: `The top level has ${topFiles.length === 0 ? "only folders" : `${topFiles.length} files, but the code lives in folders`}; \`${dir}\` looks most relevant to my task, so I'll look inside it.`,
        content: `Looking inside \`${dir}\`.`,
        toolCalls: [call("list_files", { path: dir })],
      };
    }
    const files = offered.has("read_file") ? pickFiles(entries, s.kind, taskTokens) : [];
    const keyword = keywords[0];
    const toolCalls = files.map((path) => call("read_file", { path }));
    if (keyword && offered.has("search_files")) toolCalls.push(call("search_files", { query: keyword }));
    if (toolCalls.length > 0) {
      const fileList = joinList(files.map((f) => `\`${f}\``));
      return {
        reasoning: `The listing has ${entries.length} entries; ${files.length ? `${fileList} look most relevant to my task` : "nothing there is worth reading directly"}${keyword ? `, and I'll search for "${keyword}", the most specific word of the goal` : ""}.`,
        content: [files.length ? `Reading ${fileList}` : "", keyword ? `${files.length ? ", and searching" : "Searching"} for "${keyword}"` : ""].join("") + ".",
        toolCalls,
      };
    }
  }

  // One retry of the search with the next candidate when the first word found nothing.
  const firstSearch = searches[0];
  const nextKeyword = keywords[1];
  if (searches.length === 1 && firstSearch && !firstSearch.error && searchMatches(firstSearch).length === 0 && nextKeyword && offered.has("search_files")) {
    return {
      reasoning: `"${String(firstSearch.args.query ?? "")}" matched nothing; "${nextKeyword}" is the next most specific word.`,
      content: `No matches for "${String(firstSearch.args.query ?? "")}"; searching for "${nextKeyword}".`,
      toolCalls: [call("search_files", { query: nextKeyword })],
    };
  }

  // Follow the search hits once: read the files that matched but were not read yet, keeping room
  // in the call budget for the question and the report.
  const firstSearchAt = firstSearch?.at ?? Infinity;
  const followed = reads.some((c) => c.at > firstSearchAt);
  if (firstSearch && !followed && offered.has("read_file")) {
    const read = new Set(reads.map((c) => String(c.args.path ?? "")));
    const hits = new Map<string, number>();
    for (const m of searches.flatMap(searchMatches)) if (!read.has(m.path) && !SKIP_FILES.test(m.path)) hits.set(m.path, (hits.get(m.path) ?? 0) + 1);
    const room = MAX_TOOL_CALLS - 1 - calls.length - (s.askFirst && !calls.some((c) => c.name === "ask_master") ? 1 : 0);
    const next = [...hits.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, Math.min(2, room))
      .map(([path]) => path);
    if (next.length > 0) {
      const list = joinList(next.map((f) => `\`${f}\``));
      return {
        reasoning: `The search points at ${list}, which I have not read yet; reading ${next.length === 1 ? "it" : "them"} in context.`,
        content: `Following the search hits: reading ${list}.`,
        toolCalls: next.map((path) => call("read_file", { path })),
      };
    }
  }

  if (s.askFirst && offered.has("ask_master") && !calls.some((c) => c.name === "ask_master")) {
    const seen = reads.filter((c) => !c.error).map((c) => String(c.args.path ?? ""));
    const shown = seen.length ? seen : entries.filter((e) => e.type === "file").slice(0, 3).map((e) => e.path);
    const found = shown.length ? `I found ${joinList(shown.map((p) => p.split("/").pop() ?? p))}` : "The project folder looks empty";
    const question = `The goal says "${clip(s.goal, 160)}". ${found}. Should I focus on ${FOCUS_OPTIONS[s.kind]}?`;
    return {
      reasoning: "My task says the goal may be unclear and to ask first; the answer decides where my report should focus.",
      content: "Asking the Team Leader to narrow the goal down before I report.",
      toolCalls: [call("ask_master", { question })],
    };
  }

  return report(s, offered);
}

function fileFacts(calls: readonly PastCall[]): { facts: FileFacts[]; failed: Array<{ path: string; error: string }> } {
  const facts: FileFacts[] = [];
  const failed: Array<{ path: string; error: string }> = [];
  for (const c of calls) {
    if (c.name !== "read_file" || c.resultText === undefined) continue;
    const path = str(c.result, "path") ?? String(c.args.path ?? "?");
    const content = str(c.result, "content");
    if (c.error || content === undefined) failed.push({ path: String(c.args.path ?? path), error: c.error ?? "unreadable result" });
    else facts.push(describeFile(path, content, isRecord(c.result) && c.result.truncated === true));
  }
  return { facts, failed };
}

function flagList(flags: readonly Flag[], max: number): string {
  return flags
    .slice(0, max)
    .map((f) => `\`${f.path}:${f.line}\` ${f.why}`)
    .join("; ");
}

/** The final report: findings from what was read, then recommendations for the agent's role. */
function report(s: Situation, offered: ReadonlySet<string>): OfflineDecision {
  const { calls } = s;
  const listCalls = calls.filter((c) => c.name === "list_files");
  const entries = entriesOf(calls);
  const top = entries.filter((e) => !e.path.includes("/"));
  const { facts, failed } = fileFacts(calls);
  const searches = calls.filter((c) => c.name === "search_files" && c.resultText !== undefined);
  const ask = calls.find((c) => c.name === "ask_master" && c.resultText !== undefined);
  const answer = ask ? str(ask.result, "answer") : undefined;
  const answeredBy = ask ? str(ask.result, "answered_by") : undefined;

  // Key findings come first (the leader quotes the first bullets), then what each file holds.
  const findings: string[] = [];
  const layout: string[] = [];
  if (top.length > 0) {
    const dirs = top.filter((e) => e.type === "dir");
    const files = top.filter((e) => e.type !== "dir");
    const names = [...dirs.map((d) => `${d.path}/`), ...files.map((f) => f.path)];
    const truncated = listCalls.some((c) => isRecord(c.result) && c.result.truncated === true);
    layout.push(
      `Project layout: ${top.length} entries at the top level (${dirs.length} folder${dirs.length === 1 ? "" : "s"}, ${files.length} file${files.length === 1 ? "" : "s"}): ${names.slice(0, 8).map((n) => `\`${n}\``).join(", ")}${names.length > 8 ? ` (+${names.length - 8} more)` : ""}${truncated ? " — listing truncated" : ""}.`,
    );
    const inner = entries.filter((e) => e.path.includes("/"));
    if (inner.length > 0) {
      const folders = [...new Set(inner.map((e) => e.path.split("/")[0]))];
      layout.push(`Inside ${folders.map((f) => `\`${f}/\``).join(", ")}: ${inner.slice(0, 8).map((e) => `\`${e.path}\``).join(", ")}${inner.length > 8 ? ` (+${inner.length - 8} more)` : ""}.`);
    }
  } else if (listCalls.some((c) => c.error)) {
    layout.push(`Could not list the project folder: ${listCalls.find((c) => c.error)?.error}.`);
  } else if (listCalls.length > 0) {
    layout.push("The project folder is empty.");
  }
  for (const f of facts) layout.push(f.finding);
  for (const f of failed) layout.push(`Could not read \`${f.path}\`: ${clip(f.error, 120)} — skipped.`);
  const searchLines: string[] = [];
  for (const c of searches) {
    const q = String(c.args.query ?? "");
    if (c.error) {
      searchLines.push(`Search for "${q}" failed: ${clip(c.error, 120)}.`);
      continue;
    }
    const ms = searchMatches(c);
    const more = isRecord(c.result) && c.result.truncated === true ? "+" : "";
    searchLines.push(
      ms.length
        ? `Search for "${q}": ${ms.length}${more} match${ms.length === 1 ? "" : "es"} — ${ms.slice(0, 6).map((m) => `\`${m.path}:${m.line}\``).join(", ")}${ms.length > 6 ? ", …" : ""}${ms[0]?.text ? ` (first: "${clip(ms[0].text.trim(), 70)}")` : ""}.`
        : `Search for "${q}": no matches.`,
    );
  }

  const allMatches = searches.flatMap(searchMatches);
  const risks = facts.flatMap((f) => f.risks);
  const todos = facts.flatMap((f) => f.todos);
  const colors = [...new Set(facts.flatMap((f) => f.colors))];
  const styles = facts.filter((f) => fileKind(f.path) === "style");
  const markup = facts.filter((f) => fileKind(f.path) === "markup");
  const pkg = facts.find((f) => f.path.split("/").pop() === "package.json");
  const readme = facts.find((f) => fileKind(f.path) === "readme");
  // Functions first: they are what people call, document and trace.
  const exportsAll = facts
    .flatMap((f) => f.exports.map((e) => ({ name: e, path: f.path })))
    .sort((a, b) => Number(/^[A-Z_]+$/.test(a.name)) - Number(/^[A-Z_]+$/.test(b.name)));
  const byFile = new Map<string, number>();
  for (const m of allMatches) byFile.set(m.path, (byFile.get(m.path) ?? 0) + 1);
  const hotFile = [...byFile.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const testFiles = entries.filter((e) => e.type === "file" && isTestPath(e.path));

  // Role-specific observations.
  if (s.kind === "review" || s.kind === "implementation") {
    findings.push(risks.length ? `Risky patterns: ${flagList(risks, 4)}.` : `No risky patterns (eval, raw HTML, hard-coded secrets, string-built SQL or shell commands) in the ${facts.length} file${facts.length === 1 ? "" : "s"} read.`);
  }
  if (s.kind === "ui") {
    if (colors.length) findings.push(`Colors in use: ${colors.slice(0, 8).join(", ")}${colors.length > 8 ? ` (+${colors.length - 8} more)` : ""}.`);
    if (styles.length) findings.push(`Responsive rules: ${styles.some((f) => f.media) ? "present" : "none (no @media queries)"}; focus styles: ${styles.some((f) => f.focus) ? "present" : "none"}.`);
    const noAlt = markup.reduce((n, f) => n + f.imagesWithoutAlt, 0);
    if (noAlt) findings.push(`Accessibility: ${noAlt} image${noAlt === 1 ? "" : "s"} without alt text.`);
  }
  if (s.kind === "testing") {
    findings.push(testFiles.length ? `Test files: ${testFiles.slice(0, 5).map((e) => `\`${e.path}\``).join(", ")}${testFiles.length > 5 ? ` (+${testFiles.length - 5} more)` : ""}.` : "No test files (`*.test.*`, `*.spec.*`, `tests/`) in the folders listed.");
    if (pkg) findings.push(pkg.scripts.test ? `Test command: \`${pkg.scripts.test}\`.` : "package.json has no `test` script.");
  }
  if (s.kind === "docs" && readme && pkg) {
    const readmeText = calls.find((c) => c.name === "read_file" && str(c.result, "path") === readme.path);
    const text = str(readmeText?.result, "content") ?? "";
    const undocumented = Object.keys(pkg.scripts).filter((k) => !text.includes(k));
    if (undocumented.length) findings.push(`Scripts in package.json the README never mentions: ${undocumented.map((k) => `\`${k}\``).join(", ")}.`);
  }
  findings.push(...searchLines);
  if (todos.length && s.kind !== "review") findings.push(`Open notes: ${todos.slice(0, 3).map((t) => `\`${t.path}:${t.line}\` "${clip(t.text, 60)}"`).join("; ")}.`);
  if (ask) {
    // The person's answer decides the report's focus, so it leads.
    findings.unshift(
      answer
        ? `I asked for clarification; ${!answeredBy || answeredBy === "person" ? "the person" : answeredBy} answered: "${clip(answer, 200)}" — this report focuses on that.`
        : `I asked for clarification but got no answer${ask.error ? ` (${clip(ask.error, 80)})` : ""}; I took the broadest reading of the goal.`,
    );
  }
  for (const m of s.messages) findings.push(`Message from ${m.sender}: "${clip(m.body, 160)}" — noted and taken into account.`);
  if (offered.has("write_file")) findings.push("I changed no files: this report is the analysis to act on.");

  // Recommendations for the role, from what was found (2–4).
  const recs: string[] = [];
  if (answer) recs.push(`Start with what you asked for — "${clip(answer, 100)}" — using the files above as the starting point.`);
  const firstCode = facts.find((f) => fileKind(f.path) === "source" && !f.isTest) ?? facts.find((f) => f.exports.length > 0);
  switch (s.kind) {
    case "review":
      if (risks[0]) recs.push(`Fix \`${risks[0].path}:${risks[0].line}\` first (${risks[0].why}): \`${risks[0].text}\`.`);
      if (risks[1]) recs.push(`Then \`${risks[1].path}:${risks[1].line}\` (${risks[1].why}).`);
      recs.push(firstCode ? `Add tests for the failure paths of \`${firstCode.path}\` (bad input, missing values, errors).` : "Add tests for the failure paths (bad input, missing values, errors) of the code in scope.");
      if (risks.length === 0) recs.push(`Review the remaining files${hotFile ? `, starting with \`${hotFile[0]}\` (${hotFile[1]} search hit${hotFile[1] === 1 ? "" : "s"})` : ""} the same way; validate input at every boundary and keep secrets in environment variables.`);
      break;
    case "ui": {
      const css = styles[0]?.path ?? markup[0]?.path;
      if (colors.length) recs.push(`Turn the ${colors.length} color${colors.length === 1 ? "" : "s"} in use (${colors.slice(0, 4).join(", ")}) into named CSS variables (background, surface, text, accent, danger) and check body text contrast is at least 4.5:1.`);
      else recs.push("Define a color scheme as CSS variables with a role for each color (background, surface, text, accent, danger) and contrast of at least 4.5:1.");
      if (styles.length && !styles.some((f) => f.media)) recs.push(`Add a narrow-screen breakpoint (e.g. \`@media (max-width: 640px)\`) to \`${css}\`.`);
      if (styles.length && !styles.some((f) => f.focus)) recs.push("Give links and buttons a visible `:focus-visible` style.");
      if (markup.some((f) => f.imagesWithoutAlt > 0)) recs.push(`Add \`alt\` text to the images in ${markup.filter((f) => f.imagesWithoutAlt > 0).map((f) => `\`${f.path}\``).join(", ")}.`);
      if (!styles.length && !markup.length) recs.push("Locate the page's markup and stylesheet (none were among the files read) before changing the design.");
      break;
    }
    case "research":
      if (hotFile) recs.push(`Start from \`${hotFile[0]}\`${allMatches.length > 1 ? `: it holds ${hotFile[1]} of the ${allMatches.length} search hits` : ", where the search hit points"}.`);
      if (exportsAll[0]) recs.push(`Trace how \`${exportsAll[0].name}\` (${exportsAll[0].path}) is used before changing it.`);
      recs.push(readme ? `Record the findings in \`${readme.path}\` so the next person does not have to trace them again.` : "Write the findings down in a README; the project has none among the files read.");
      break;
    case "testing":
      if (!pkg?.scripts.test) recs.push("Add a `test` script to package.json so the suite runs with one command.");
      recs.push(firstCode ? `Cover \`${firstCode.path}\`${firstCode.exports.length ? ` (${firstCode.exports.slice(0, 3).map((e) => `\`${e}\``).join(", ")})` : ""} with unit tests, including the failure cases.` : "Write unit tests for the main module, including the failure cases.");
      if (testFiles.length === 0) recs.push("Create a test folder next to the code; no tests exist yet.");
      break;
    case "docs":
      if (readme) {
        const have = readme.headings.join(" ").toLowerCase();
        const missing = [
          ["Install", /install|setup|getting started/],
          ["Usage", /usage|run|start/],
          ["Configuration", /config|environment|options/],
          ["Testing", /test/],
        ].filter(([, re]) => !(re as RegExp).test(have)).map(([name]) => name as string);
        recs.push(
          missing.length
            ? `Add the missing sections to \`${readme.path}\`: ${missing.join(", ")}${readme.headings.length > 1 ? ` (it has: ${readme.headings.slice(1, 5).join(", ")})` : ""}.`
            : `Keep \`${readme.path}\` in step with the code: check each command and option it names still exists.`,
        );
      } else recs.push("Create a README with what the project is, how to install and run it, and its configuration.");
      if (pkg && Object.keys(pkg.scripts).length) recs.push(`Document each script (${Object.keys(pkg.scripts).slice(0, 5).map((k) => `\`${k}\``).join(", ")}) with the exact command and what it does.`);
      if (exportsAll[0]) recs.push(`Add a usage example for \`${exportsAll[0].name}\` from \`${exportsAll[0].path}\`.`);
      break;
    case "implementation":
      recs.push(hotFile ? `Make the change in \`${hotFile[0]}\` (${hotFile[1]} relevant line${hotFile[1] === 1 ? "" : "s"}) and keep it small.` : firstCode ? `Make the change in \`${firstCode.path}\` and keep it small.` : "Locate the entry point first; none of the files read holds the code the goal names.");
      recs.push("Add a test that fails before the change and passes after it.");
      if (todos[0]) recs.push(`Resolve the open note at \`${todos[0].path}:${todos[0].line}\` while there.`);
      break;
    default:
      recs.push(hotFile ? `Look at \`${hotFile[0]}\` first (${hotFile[1]} search hit${hotFile[1] === 1 ? "" : "s"}).` : "Read the remaining files in the project to complete the picture.");
      recs.push("Turn the findings above into a concrete follow-up goal for the team.");
  }
  if (failed.length) recs.push(`Check why ${joinList(failed.map((f) => `\`${f.path}\``))} could not be read.`);
  const recommendations = recs.slice(0, 4);
  if (recommendations.length < 2) recommendations.push("Send a follow-up goal if any of this should be acted on.");

  const summary = [
    `**${s.roleName} report** — goal: "${clip(s.goal, 140)}"`,
    "",
    "**Findings**",
    ...findings.map((f) => `- ${f}`),
    "",
    "**What I looked at**",
    ...layout.map((f) => `- ${f}`),
    "",
    "**Recommendations**",
    ...recommendations.map((r) => `- ${r}`),
  ].join("\n");
  const status = facts.length === 0 && entries.length === 0 && calls.some((c) => c.error) ? "partial" : "completed";
  return {
    reasoning: `I have listed ${entries.length} entries, read ${facts.length} file${facts.length === 1 ? "" : "s"} and searched ${searches.length} time${searches.length === 1 ? "" : "s"}; that is enough for a useful report.`,
    // Without the report tool (a misconfigured runtime) the report is the answer itself.
    content: offered.has("report_to_leader")
      ? `Reporting my findings to the Team Leader: ${facts.length} file${facts.length === 1 ? "" : "s"} read, ${allMatches.length} search match${allMatches.length === 1 ? "" : "es"}.`
      : summary,
    toolCalls: offered.has("report_to_leader") ? [call("report_to_leader", { summary, status })] : [],
  };
}

/**
 * Where the offline sub-agent stands, read from its request: who it is, its task and the goal
 * quoted in it, the language to answer in, the kind of work its role does, messages that came in
 * since the task, whether the goal asks it to run the tests or a build, and which of the goal's
 * words are worth a code search (identifiers and the project's own terms — never filler). Pure.
 */
import { isPlaceholderText } from "@/lib/context/types";
import { parseAgentMessage } from "@/lib/contracts/messages";
import type { ChatMessage } from "@/lib/models/types";
import { textOf } from "./history";
import { ASK_ME_SENTENCE, ASK_ME_SENTENCE_ZH, ASPECTS, STOP_WORDS, VAGUE_WORDS, englishWords, langOf, tokenize, type Aspect, type Lang } from "./text";

/** The kind of agent, by its role. */
export type RoleKind = Aspect["key"] | "generic";

/** What the report needs of the agent's situation. */
export interface ReportSituation {
  roleName: string;
  kind: RoleKind;
  goal: string;
  lang: Lang;
  run: "test" | "build" | null;
  messages: Array<{ sender: string; body: string }>;
}

/** The parts of a sub-agent's situation every step looks at. */
export interface Situation {
  self: string;
  roleName: string;
  kind: RoleKind;
  task: string;
  goal: string;
  lang: Lang;
  taskIdx: number;
  messages: Array<{ sender: string; body: string }>;
  askFirst: boolean;
  /** What the goal asks to run: the tests, a build, or nothing. */
  run: "test" | "build" | null;
}

function roleKind(roleName: string, task: string): RoleKind {
  const words = englishWords(roleName);
  for (const a of ASPECTS) if (a.roleWords.some((w) => words.includes(w))) return a.key;
  // A task written by the offline leader says "As the {Role}, …"; otherwise judge by the task's words.
  const named = /\bAs the ([^,\n]+),/.exec(task)?.[1] ?? /作为\s*([^，,\n]+?)\s*[，,]/.exec(task)?.[1];
  if (named) {
    const nw = englishWords(named);
    for (const a of ASPECTS) if (a.roleWords.some((w) => nw.includes(w))) return a.key;
  }
  const tokens = tokenize(task);
  let best: RoleKind = "generic";
  let bestScore = 0;
  for (const a of ASPECTS) {
    const sc = a.terms.filter((t) => tokens.has(t)).length;
    if (sc > bestScore) {
      best = a.key;
      bestScore = sc;
    }
  }
  return best;
}

/** What a goal asks to run: "run the tests" / "运行测试" → test; "build it" / "构建" → build. */
export function runRequest(goal: string): "test" | "build" | null {
  const g = goal.toLowerCase();
  if (/\b(run|execute|rerun|re-run)\b[^.;\n]{0,30}\b(tests?|test suite|specs?|pytest|npm test)\b|\bnpm (run )?test\b|\bpytest\b|\bmake test\b/.test(g) || /(运行|跑|执行|跑一下|运行一下)[^。；\n]{0,8}(测试|单测|用例)/.test(goal)) return "test";
  if (/\bbuild (it|the project|the app|the package|this)\b|\b(run|do|make)( a| the)? build\b|\bnpm run build\b|\bcompile (it|the project)\b/.test(g) || /(构建|编译|打包)(一下|项目|这个项目)?/.test(goal)) return "build";
  return null;
}

/** Reads the sub-agent's situation from its messages. */
export function situation(messages: readonly ChatMessage[]): Situation {
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
  const goal = /^Goal:\s*"(.*)"\s*$/m.exec(task)?.[1] ?? /^目标：“(.*)”\s*$/m.exec(task)?.[1] ?? task.replace(ASK_ME_SENTENCE, "").replace(ASK_ME_SENTENCE_ZH, "").trim();
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
    lang: langOf(goal || task),
    taskIdx,
    messages: inbound,
    askFirst: task.includes(ASK_ME_SENTENCE) || task.includes(ASK_ME_SENTENCE_ZH),
    run: runRequest(goal || task),
  };
}

/** Words too general to search for: they would match everywhere or nowhere useful. */
const GENERIC_WORDS = new Set([
  "code", "codebase", "project", "app", "application", "file", "files", "folder", "repo", "repository", "page", "pages",
  "team", "goal", "work", "task", "report", "look", "check", "review", "research", "investigate", "write", "docs", "doc",
  "documentation", "document", "test", "tests", "testing", "fix", "implement", "design", "add", "update", "create", "new",
  "issue", "issues", "problem", "problems", "scheme", "plan", "system", "part", "way", "find", "explain", "describe",
  "security", "quality", "current", "existing", "whole", "entire", "module", "modules", "feature", "features", "analyze",
  "analyse", "compare", "study", "understand", "show", "tell", "give", "propose", "proposal", "build", "refactor", "audit",
  "short", "long", "whether", "suite", "summary", "summarize", "summarise", "overview", "architecture", "structure", "run",
  "write-up", "writeup", "idea", "ideas", "list", "handling", "path", "paths", "safety", "crash", "error", "errors",
]);

/** Chinese terms and the English word a code search should use for them. */
const CJK_KEYWORDS: ReadonlyArray<[string, string]> = [
  ["配色", "color"], ["颜色", "color"], ["样式", "style"], ["字体", "font"], ["布局", "layout"], ["按钮", "button"],
  ["表单", "form"], ["导航", "nav"], ["登录", "login"], ["认证", "auth"], ["鉴权", "auth"], ["密码", "password"],
  ["数据库", "database"], ["存储", "storage"], ["接口", "api"], ["配置", "config"], ["缓存", "cache"], ["路由", "route"],
  ["日志", "log"], ["权限", "permission"],
];

/** A word written as code: camelCase, snake_case, dotted, or in backticks in the goal. */
function codeLike(word: string, goal: string): boolean {
  return /[a-z][A-Z]|_|\w\.\w/.test(word) || goal.includes(`\`${word}\``);
}

/** The tokens of a name (`createRefund` → create, refund; `src/payments` → src, payments). */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length >= 3);
}

/**
 * The goal's words worth a code search, most specific first: words written as code, and words
 * that are the project's own terms (`vocabulary`: the tokens of the names of the files, folders
 * and definitions seen). A word only English grammar or the request's wording gives ("short",
 * "whether", "suite") is never one. Chinese terms count through their usual English name.
 */
export function goalTerms(goal: string, vocabulary: ReadonlySet<string>): string[] {
  // a path the goal names is listed, not searched for: its words are not terms
  const raw = goal.replace(/\S*\/\S*/g, " ").match(/[A-Za-z_][\w.-]*/g) ?? [];
  const out: string[] = [];
  const add = (w: string) => {
    if (w && !out.includes(w)) out.push(w);
  };
  const singular = (w: string) => (w.endsWith("s") && w.length > 4 && !w.endsWith("ss") ? w.slice(0, -1) : w);
  const words = raw
    .map((w) => w.replace(/^[-_.]+|[-_.]+$/g, ""))
    .filter((w) => w.length >= 3 && !/^\d+$/.test(w) && !w.includes("/"))
    .sort((a, b) => b.length - a.length);
  for (const w of words) {
    const lower = w.toLowerCase();
    if (STOP_WORDS.has(lower) || VAGUE_WORDS.has(lower)) continue;
    if (codeLike(w, goal)) add(w);
    else if (!GENERIC_WORDS.has(lower) && (vocabulary.has(lower) || vocabulary.has(singular(lower)))) add(vocabulary.has(singular(lower)) ? singular(lower) : lower);
  }
  const cjk = CJK_KEYWORDS.filter(([zh]) => goal.includes(zh)).sort((a, b) => goal.indexOf(a[0]) - goal.indexOf(b[0]));
  for (const [, en] of cjk) add(en);
  return out;
}

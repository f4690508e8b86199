/**
 * When `search_knowledge` is offered (seed 003 §5.3: knowledge retrieval is explicit, never
 * implicit). A task that asks for a precise fact — where something is defined, what a field or a
 * setting is, a default value, which file — gets the tool and a one-line hint; a task that asks
 * for an explanation, a summary or a piece of writing does not (the model's own reading of the
 * files it is pointed at serves it better than passages out of context). Cues are matched on the
 * task's text, English and Chinese; the decision and the cues that made it are what the timeline
 * shows (`knowledge_routing`). Pure.
 */

/** What the router decided for one task. */
export interface KnowledgeRouting {
  offer: boolean;
  /** Precise-fact cues found. */
  precise: string[];
  /** Explanatory cues found. */
  explanatory: string[];
}

/** Characters of a task read: what it asks for is said at its start. */
const ROUTE_READ_CHARS = 4000;

// English cues are matched as whole phrases on lower-cased text with single spaces; Chinese ones
// as substrings. Each cue is a short phrase a person uses when they want one exact answer.
const PRECISE_EN = [
  "where is",
  "where are",
  "where's",
  "where does",
  "where do",
  "which file",
  "which files",
  "what file",
  "which module",
  "which function",
  "which line",
  "which class",
  "which setting",
  "which option",
  "which field",
  "which config",
  "which environment variable",
  "defined",
  "definition",
  "declared",
  "declaration",
  "default value",
  "default of",
  "defaults to",
  "the default",
  "what is the value",
  "value of",
  "config value",
  "configuration value",
  "config key",
  "configuration option",
  "config option",
  "setting for",
  "environment variable",
  "env var",
  "field",
  "fields",
  "signature",
  "return type",
  "type of",
  "look up",
  "lookup",
  "locate",
  "find where",
  "what port",
  "what timeout",
  "how many bytes",
  "maximum",
  "minimum",
  "limit of",
  "constant",
  "schema of",
  "enum",
  "error code",
  "exact",
  "precisely",
  "line number",
  "file path",
];
const PRECISE_ZH = ["字段", "定义", "在哪", "哪里", "哪个文件", "哪个函数", "哪个模块", "哪一行", "哪行", "默认值", "默认", "配置项", "配置值", "取值", "参数", "签名", "返回类型", "环境变量", "常量", "枚举", "上限", "下限", "最大值", "最小值", "错误码", "路径", "位于", "查找", "查询", "多少"];

const EXPLANATORY_EN = [
  "explain",
  "explanation",
  "summarize",
  "summarise",
  "summary",
  "overview",
  "describe",
  "architecture",
  "walk me through",
  "walk through",
  "introduce",
  "introduction",
  "why",
  "how does",
  "how do",
  "compare",
  "pros and cons",
  "brainstorm",
  "design",
  "propose",
  "write a",
  "write an",
  "draft",
  "rewrite",
  "review",
  "refactor",
  "plain words",
  "in simple terms",
  "tutorial",
  "teach",
  "opinion",
  "suggest",
  "improve",
];
const EXPLANATORY_ZH = ["解释", "介绍", "总结", "概述", "概括", "架构", "为什么", "原理", "通俗", "讲解", "说明一下", "梳理", "对比", "比较", "设计", "建议", "评审", "审查", "重构", "撰写", "写一", "改写", "优化", "思路", "怎么工作", "如何工作"];

const CJK = /[\u3400-\u9fff]/;

function norm(text: string): string {
  return ` ${text.slice(0, ROUTE_READ_CHARS).toLowerCase().replace(/[^\p{L}\p{N}'\u3400-\u9fff]+/gu, " ").replace(/\s+/g, " ").trim()} `;
}

function found(cues: readonly string[], spaced: string, raw: string): string[] {
  return cues.filter((c) => (CJK.test(c) ? raw.includes(c) : spaced.includes(` ${c} `)));
}

/**
 * Decides for one task: offered when it carries at least one precise-fact cue and no more
 * explanatory cues than precise ones ("explain the architecture" → no; "where is the retry delay
 * defined" → yes; "explain where X is defined" → yes, one each: the task still needs the fact).
 */
export function routeKnowledge(task: string): KnowledgeRouting {
  const raw = task.slice(0, ROUTE_READ_CHARS).toLowerCase();
  const spaced = norm(task);
  const precise = [...found(PRECISE_EN, spaced, raw), ...found(PRECISE_ZH, spaced, raw)];
  const explanatory = [...found(EXPLANATORY_EN, spaced, raw), ...found(EXPLANATORY_ZH, spaced, raw)];
  return { offer: precise.length > 0 && precise.length >= explanatory.length, precise, explanatory };
}

/** The line added to a sub-agent's prompt when the tool is offered. */
export const KNOWLEDGE_HINT =
  "This task asks for precise facts: search_knowledge(query, paths?) finds the passages of the project's documents and code that state them, cited as file:line-range — use it before reading files one by one, and cite the locations you rely on.";

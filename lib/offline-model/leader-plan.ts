/**
 * How the offline Team Leader plans a team: reading the role catalog from its `create_sub_agent`
 * tool, matching the goal's kinds of work to roles, and writing each agent's task. Pure.
 */
import { buildRegistry, classifyIntent } from "@/lib/governance";
import type { ToolSpec } from "@/lib/models/types";
import { ASK_ME_SENTENCE, ASK_ME_SENTENCE_ZH, ASPECTS, aspectPositions, englishWords, joinList, tokenize, type Aspect, type Lang } from "./text";

/** A role as the leader's `create_sub_agent` tool describes it. */
export interface CatalogRole {
  id: string;
  name: string;
  description: string;
  capabilities: string[];
  /** True when the catalog marks the tags as derived from the description (the role declares none). */
  derived?: boolean;
}

// `- {id}: {name} — {description} (capabilities: {tag1, tag2, …})`, or `(derived capabilities: …)`
// for a role whose tags were derived from its description; the description may itself contain
// dashes and parentheses, so the name stops at the first " — " and the tags are the last group.
const CATALOG_LINE = /^\s*[-*]\s+([^\s:]+):\s+(.+?)\s+—\s+(.*?)\s*\((derived )?capabilities:\s*([^()]*)\)\s*$/;

function titleCase(id: string): string {
  return id
    .split(/[-_.\s]+/)
    .filter(Boolean)
    .map((w) => (w.length <= 2 ? w.toUpperCase() : w[0]!.toUpperCase() + w.slice(1)))
    .join(" ");
}

/**
 * The roles offered by `create_sub_agent`: the `role_id` enum decides which roles exist (only
 * authorized ones are listed there), the description's catalog lines add names and capabilities.
 */
export function parseCatalog(tool: ToolSpec | undefined): CatalogRole[] {
  if (!tool) return [];
  const described = new Map<string, CatalogRole>();
  for (const line of tool.function.description.split("\n")) {
    const m = CATALOG_LINE.exec(line);
    if (!m) continue;
    const [, id = "", name = "", description = "", derived, caps = ""] = m;
    described.set(id, {
      id,
      name: name.trim(),
      description: description.trim(),
      capabilities: caps
        .split(",")
        .map((c) => c.trim().toLowerCase())
        .filter(Boolean),
      ...(derived ? { derived: true } : {}),
    });
  }
  const props = (tool.function.parameters as { properties?: { role_id?: { enum?: unknown } } }).properties;
  const ids = Array.isArray(props?.role_id?.enum)
    ? props.role_id.enum.filter((v): v is string => typeof v === "string")
    : [...described.keys()];
  return ids.map((id) => described.get(id) ?? { id, name: titleCase(id), description: "", capabilities: [] });
}

/** How strongly a role does the work of an aspect: its matching capability tags, plus its name. */
function aspectStrength(role: CatalogRole, aspect: Aspect): number {
  const tags = aspect.tags.filter((t) => role.capabilities.includes(t)).length;
  const nameWords = englishWords(`${role.name} ${role.id}`);
  const byName = aspect.roleWords.some((w) => nameWords.includes(w)) ? 1 : 0;
  return tags + byName;
}

/** The kind of work a role mainly does; null when its tags and name say nothing we know. */
export function primaryAspect(role: CatalogRole): Aspect | null {
  let best: Aspect | null = null;
  let bestScore = 0;
  for (const aspect of ASPECTS) {
    const s = aspectStrength(role, aspect);
    if (s > bestScore) {
      best = aspect;
      bestScore = s;
    }
  }
  return best;
}

/** A role chosen for a goal, with the score that chose it (shown in the leader's thinking). */
export interface RoleMatch {
  role: CatalogRole;
  score: number;
}

/** The aspects a goal names, in the order the goal names them. */
export function goalAspects(goal: string): Aspect[] {
  const positions = aspectPositions(ASPECTS, goal);
  return ASPECTS.map((a, i) => ({ a, at: positions[i]! }))
    .filter((x) => x.at >= 0)
    .sort((x, y) => x.at - y.at)
    .map((x) => x.a);
}

/**
 * Scores every role against a goal: aspects the goal names weigh most (through the role's
 * capability tags), then word overlap with tags, name and description.
 */
function scoreRoles(goal: string, roles: readonly CatalogRole[]): RoleMatch[] {
  const words = tokenize(goal);
  const aspects = goalAspects(goal);
  return roles.map((role) => {
    let score = 0;
    for (const a of aspects) score += 4 * aspectStrength(role, a);
    const tagTokens = tokenize(role.capabilities.join(" "));
    const nameTokens = tokenize(`${role.name} ${role.id}`);
    const descTokens = tokenize(role.description);
    for (const w of words) {
      if (tagTokens.has(w)) score += 3;
      if (nameTokens.has(w)) score += 2;
      if (descTokens.has(w)) score += 1;
    }
    return { role, score };
  });
}

/**
 * The runtime's intent routing of a goal over the catalog (lib/governance: capability tags plus
 * BM25 over id, name, description and tags), as role id → position (0 = best). Roles it does not
 * find are absent. The offline leader orders roles the way the candidate note would, so with a
 * large imported library it picks the roles routing names rather than the first loose match.
 */
export function routingOrder(goal: string, roles: readonly CatalogRole[]): Map<string, number> {
  const registry = buildRegistry(
    roles.map((r) => ({
      kind: "role" as const,
      id: r.id,
      file: `${r.id}.md`,
      name: r.name,
      description: r.description,
      capabilities: r.derived ? [] : r.capabilities,
      ...(r.derived ? { derived_capabilities: r.capabilities } : {}),
      tools: [],
      permissions: [],
      access: { permissions: [], project_tools: [] },
      warnings: [],
    })),
  );
  const { candidates } = classifyIntent(goal, registry, { limit: roles.length });
  return new Map(candidates.map((c, i) => [c.role_id, i]));
}

/**
 * Picks 1–3 roles for a goal: the strongest role for each aspect the goal names (in the goal's
 * order, no role twice; among equally strong roles, the one routing ranks first, then the best
 * word score; a role with derived tags counts 1 when it fits at all); with no aspect named, the roles routing ranks first (a close runner-up joins);
 * with no match at all, a researcher-like role, else the first role.
 */
export function matchRoles(goal: string, roles: readonly CatalogRole[]): RoleMatch[] {
  if (roles.length === 0) return [];
  const scored = scoreRoles(goal, roles);
  const order = routingOrder(goal, roles);
  const routed = (m: RoleMatch) => order.get(m.role.id) ?? Number.POSITIVE_INFINITY;
  const picked: RoleMatch[] = [];
  const has = (id: string) => picked.some((p) => p.role.id === id);
  for (const aspect of goalAspects(goal)) {
    let best: { m: RoleMatch; strength: number } | null = null;
    for (const m of scored) {
      // Derived tags are what a description mentions, not what the role is for: a long description
      // names many tags of an aspect. Such a role counts as fitting the aspect or not, and routing orders it.
      const strength = m.role.derived ? Math.min(1, aspectStrength(m.role, aspect)) : aspectStrength(m.role, aspect);
      if (strength === 0) continue;
      const better =
        !best ||
        strength > best.strength ||
        (strength === best.strength && (routed(m) < routed(best.m) || (routed(m) === routed(best.m) && m.score > best.m.score)));
      if (better) best = { m, strength };
    }
    if (best && !has(best.m.role.id)) picked.push(best.m);
    if (picked.length === 3) return picked;
  }
  if (picked.length === 0) {
    const ranked = [...scored].sort((a, b) => routed(a) - routed(b) || b.score - a.score);
    const [top, second] = ranked;
    if (top && top.score > 0) {
      picked.push(top);
      // "Several roles score well": a runner-up close to the winner joins the team.
      if (second && second.score >= 3 && second.score >= 0.8 * top.score) picked.push(second);
    }
  }
  if (picked.length === 0) {
    const researcher =
      scored.find((m) => m.role.capabilities.includes("research")) ?? scored.find((m) => m.role.id.includes("research"));
    picked.push(researcher ?? scored[0]!);
  }
  return picked;
}

/** What each kind of agent is asked to do, in English and in Chinese; `{goal}` is quoted by the caller. */
const TASK_BODY: Record<Aspect["key"] | "generic", [(name: string) => string, (name: string) => string]> = {
  review: [
    (name) => `As the ${name}, review the project folder for this goal: list the files, read the entry points and the code the goal is about, and search for risky patterns (input handling, secrets, error paths). Report concrete findings with file:line references, ranked by severity, and the fixes you recommend.`,
    (name) => `作为 ${name}，请针对这个目标审查项目文件夹：列出文件，阅读入口和目标涉及的代码，搜索有风险的写法（输入处理、密钥、错误路径）。汇报带 file:line 引用的具体发现（按严重程度排序）以及你建议的修复。`,
  ],
  ui: [
    (name) => `As the ${name}, study the pages, styles and components (HTML, CSS, React/JSX files) the goal touches: the current layout, colors and accessibility. Report what exists today (file names, colors with hex values) and a concrete proposal for the goal.`,
    (name) => `作为 ${name}，请研究目标涉及的页面、样式和组件（HTML、CSS、React/JSX 文件）：现在的布局、配色和无障碍。汇报现状（文件名、颜色的十六进制值）以及针对目标的具体方案。`,
  ],
  research: [
    (name) => `As the ${name}, investigate this in the project folder: survey the layout, read the README, the package manifest and the entry points, search for the names the code defines, and report how it is structured and how it works today with file references, plus your recommendation.`,
    (name) => `作为 ${name}，请在项目文件夹中调查：梳理目录结构，阅读 README、包清单和入口文件，搜索代码中定义的名称，汇报项目的结构和现在的工作方式（附文件引用）以及你的建议。`,
  ],
  testing: [
    (name) => `As the ${name}, find the test setup (framework, test scripts, existing tests) and the code the goal is about. Report which behaviours are covered, the gaps, and the tests to add first.`,
    (name) => `作为 ${name}，请找出测试配置（框架、测试脚本、现有测试）以及目标涉及的代码。汇报哪些行为已被覆盖、有哪些缺口、应先补哪些测试。`,
  ],
  docs: [
    (name) => `As the ${name}, gather the facts the documentation needs: read the README, the package manifest and its scripts, and the code the goal is about. Report what the docs must cover (setup, commands, options), what is missing or out of date, and an outline.`,
    (name) => `作为 ${name}，请收集文档需要的事实：阅读 README、包清单及其脚本，以及目标涉及的代码。汇报文档必须涵盖的内容（安装、命令、选项）、缺失或过时的部分，以及大纲。`,
  ],
  implementation: [
    (name) => `As the ${name}, locate the code to change: list the files, read the modules involved and search for the functions and messages the goal names. Report the files involved with line references and a step-by-step change plan, including the tests to add.`,
    (name) => `作为 ${name}，请找到要改动的代码：列出文件，阅读相关模块，搜索目标提到的函数和消息。汇报涉及的文件（附行号引用）和分步改动计划，包括要补充的测试。`,
  ],
  generic: [
    (name) => `As the ${name}, work on this goal from your role's point of view: look at the project folder (list it, read the key files, search for the names the code uses) and report your findings with file references and 2–4 recommendations.`,
    (name) => `作为 ${name}，请从你的角色出发处理这个目标：查看项目文件夹（列出文件、阅读关键文件、搜索代码中的名称），汇报附文件引用的发现和 2–4 条建议。`,
  ],
};

/** One-phrase purpose of each kind of agent, for the leader's plan. */
export const PURPOSE: Record<Aspect["key"] | "generic", [string, string]> = {
  review: ["review the code for issues", "审查代码问题"],
  ui: ["study the UI and propose changes", "研究界面并提出方案"],
  research: ["investigate how it works", "调研现有实现"],
  testing: ["check the tests and coverage", "检查测试与覆盖"],
  docs: ["gather what the docs need", "整理文档所需内容"],
  implementation: ["plan the code changes", "规划代码改动"],
  generic: ["look at it from its angle", "从其角度分析"],
};

/**
 * The task text handed to a sub-agent: the goal quoted on its first line (the offline sub-agent
 * reads it back from there), what to look at, what to report, and who else is on the team.
 */
export function buildTask(goal: string, role: CatalogRole, teammates: readonly CatalogRole[], askFirst: boolean, lang: Lang = "en"): string {
  const kind = primaryAspect(role)?.key ?? "generic";
  const quoted = goal.replace(/\s+/g, " ").trim();
  const zh = lang === "zh";
  const parts = [zh ? `目标：“${quoted}”` : `Goal: "${quoted}"`, TASK_BODY[kind][zh ? 1 : 0](role.name)];
  if (teammates.length > 0) {
    const names = joinList(teammates.map((t) => t.name), lang);
    parts.push(zh ? `这个目标的其他成员：${names}；请专注于你的部分。` : `Teammates on this goal: ${names}; keep to your part.`);
  }
  if (askFirst) parts.push(zh ? ASK_ME_SENTENCE_ZH : ASK_ME_SENTENCE);
  return parts.join("\n");
}

const GREETING_WORDS = new Set(["hi", "hello", "hey", "thanks", "thank", "you", "ok", "okay", "cool", "great", "nice", "good", "bye"]);
const GREETING_CJK = ["你好", "谢谢", "好的", "嗨", "您好", "再见", "收到"];

/** True for a goal that is only a greeting or a thank-you: no team is assembled for it. */
export function isGreeting(goal: string): boolean {
  let rest = goal.toLowerCase();
  for (const g of GREETING_CJK) rest = rest.split(g).join(" ");
  // Anything else in Chinese is content, not a greeting.
  if (/[\u3400-\u9fff]/.test(rest)) return false;
  return englishWords(rest).every((w) => GREETING_WORDS.has(w));
}

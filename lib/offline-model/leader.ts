/**
 * The offline Team Leader. Each call re-reads the conversation since the person's latest goal and
 * takes the first step that applies: relay new questions to the person, assemble a team, summarize
 * the reports once all are in, or say how far the team has got. Deterministic and pure. The
 * team is planned in lib/models/offline/leader-plan.ts.
 */
import { isPlaceholderText } from "@/lib/context/types";
import { parseAgentMessage, type AgentMessage } from "@/lib/contracts/messages";
import type { ChatMessage, ChatRequest } from "@/lib/models/types";
import { pastCalls, textOf, toolNames, type OfflineDecision } from "./history";
import { buildTask, goalAspects, isGreeting, matchRoles, parseCatalog, primaryAspect, PURPOSE, type CatalogRole } from "./leader-plan";
import { runRequest } from "./sub-agent-situation";
import { clip, isAmbiguousGoal, isRecord, joinList, langOf, str, tr, type Lang } from "./text";

/** Title prefixes of the final summary; a summary already written is not written again. */
const SUMMARY_TITLES = ["## Team summary", "## 团队总结"] as const;

interface CreatedAgent {
  displayName: string;
  agentId: number | null;
  roleId: string;
}

interface Inbound {
  msg: AgentMessage;
  index: number;
}

function reportBullets(body: string): string[] {
  const lines = body.split("\n");
  const out: string[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (isRecommendationHeading(t)) break;
    if (/^([-*•]|\d+[.)])\s+/.test(t)) out.push(t.replace(/^([-*•]|\d+[.)])\s+/, ""));
    if (out.length >= 20) break;
  }
  return out;
}

function isRecommendationHeading(line: string): boolean {
  return !/^([-*•]|\d+[.)])\s/.test(line) && /^(#+\s*|\*\*)?\s*(recommendations?|next steps?|建议|后续)/i.test(line);
}

function reportRecommendations(body: string): string[] {
  const lines = body.split("\n").map((l) => l.trim());
  const start = lines.findIndex(isRecommendationHeading);
  if (start < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^([-*•]|\d+[.)])\s+/.test(line)) out.push(line.replace(/^([-*•]|\d+[.)])\s+/, ""));
    else if (line && out.length > 0) break;
  }
  return out;
}

function firstLines(body: string, n: number): string[] {
  return body
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^#+\s*$/.test(l))
    .slice(0, n);
}

/** The final summary, built only from what the reports say. */
function summarize(goal: string, lang: Lang, agents: CreatedAgent[], reports: Map<string, Inbound>, roles: CatalogRole[], terminated: Set<string>): string {
  const out: string[] = [];
  out.push(`${lang === "zh" ? SUMMARY_TITLES[1] + "：" : SUMMARY_TITLES[0] + ": "}${clip(goal, 80)}`);
  out.push("");
  const reported = agents.filter((a) => reports.has(a.displayName));
  out.push(
    tr(
      lang,
      `${reported.length} ${reported.length === 1 ? "report" : "reports"} came back from the team (${joinList(reported.map((a) => a.displayName))}). Key findings:`,
      `团队共提交 ${reported.length} 份汇报（${joinList(reported.map((a) => a.displayName), "zh")}）。主要发现：`,
    ),
  );
  const nextSteps: string[] = [];
  // Teammates often see the same layout; a finding already quoted is not repeated.
  const quoted = new Set<string>();
  for (const agent of agents) {
    const roleName = roles.find((r) => r.id === agent.roleId)?.name ?? agent.roleId;
    out.push("");
    out.push(`### ${agent.displayName} — ${roleName}`);
    const report = reports.get(agent.displayName);
    if (!report) {
      out.push(terminated.has(agent.displayName) ? tr(lang, "_Stopped before reporting._", "_在汇报前已被终止。_") : tr(lang, "_No report._", "_没有汇报。_"));
      continue;
    }
    const all = reportBullets(report.msg.body);
    const bullets = all.filter((b) => !quoted.has(b)).slice(0, 6);
    for (const b of all) quoted.add(b);
    if (bullets.length > 0) for (const b of bullets) out.push(`- ${b}`);
    else if (all.length > 0) out.push(tr(lang, "- Same findings as above.", "- 发现与上文相同。"));
    else for (const l of firstLines(report.msg.body, 3)) out.push(`> ${l}`);
    for (const r of reportRecommendations(report.msg.body).slice(0, 2)) nextSteps.push(`${r} (${agent.displayName})`);
  }
  out.push("");
  out.push(tr(lang, "### Next steps", "### 后续步骤"));
  if (nextSteps.length === 0) {
    nextSteps.push(
      tr(lang, "Review the findings above and pick the first change to make.", "审阅以上发现，确定首先要做的改动。"),
      tr(lang, "Send a follow-up goal to have the team carry it out.", "发送新的目标，让团队去落实。"),
    );
  }
  nextSteps.slice(0, 6).forEach((s, i) => out.push(`${i + 1}. ${s}`));
  return out.join("\n");
}

/** Decides the offline leader's answer to one request. */
export function decideLeader(req: ChatRequest): OfflineDecision {
  const msgs: readonly ChatMessage[] = req.messages;
  let goalIdx = -1;
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i];
    // the context window's stand-in for messages it left out is not a person's goal
    if (m?.role === "user" && parseAgentMessage(textOf(m)) === null && !isPlaceholderText(textOf(m))) {
      goalIdx = i;
      break;
    }
  }
  const goal = goalIdx >= 0 ? textOf(msgs[goalIdx]).trim() : "";
  const lang = langOf(goal);
  const roles = parseCatalog(req.tools?.find((t) => t.function.name === "create_sub_agent"));
  const calls = pastCalls(msgs, goalIdx);

  const created: CreatedAgent[] = [];
  const refused: string[] = [];
  let awaitingCreate = false;
  for (const c of calls) {
    if (c.name !== "create_sub_agent") continue;
    const displayName = str(c.result, "display_name");
    if (displayName) {
      const rawId = (c.result as Record<string, unknown>).agent_id;
      created.push({ displayName, agentId: typeof rawId === "number" ? rawId : null, roleId: String(c.args.role_id ?? "") });
    } else if (c.resultText === undefined) awaitingCreate = true;
    else refused.push(`${String(c.args.role_id ?? "?")}: ${c.error ?? clip(c.resultText, 120)}`);
  }
  // The calls that created the team may have been left out of view since (the context window
  // left messages out, or reports came in): list_agents says who is on the goal's team.
  if (created.length === 0 && !awaitingCreate && goal && teamMayExist(msgs, goalIdx)) {
    const listed = [...calls].reverse().find((c) => c.name === "list_agents");
    if (!listed && toolNames(req.tools).has("list_agents")) {
      return {
        reasoning: tr(lang, "Earlier messages are out of view; I check which agents work on this goal before I go on.", "较早的消息已不在视野内；继续之前，我先查看哪些成员在处理这个目标。"),
        content: tr(lang, "Checking on the team…", "正在查看团队…"),
        toolCalls: [{ name: "list_agents", args: {} }],
      };
    }
    if (listed) created.push(...teamOf(listed.result, goal));
  }
  const answered = new Set(calls.filter((c) => c.name === "answer_question").map((c) => String(c.args.question_id ?? "")));
  const terminated = new Set<string>();
  for (const c of calls.filter((x) => x.name === "terminate_agent")) {
    const target = c.args.agent_id;
    const agent = created.find((a) => a.agentId === Number(target) || a.displayName === target);
    if (agent && !c.error) terminated.add(agent.displayName);
  }

  const reports = new Map<string, Inbound>();
  const questions: Inbound[] = [];
  for (let i = goalIdx + 1; i < msgs.length; i++) {
    const m = msgs[i];
    if (m?.role !== "user") continue;
    const parsed = parseAgentMessage(textOf(m));
    if (!parsed) continue;
    if (parsed.kind === "report") reports.set(parsed.sender, { msg: parsed, index: i });
    else if (parsed.kind === "message" && parsed.id.startsWith("ask_")) questions.push({ msg: parsed, index: i });
  }

  // 1. Questions: only the person knows their intent, so they are relayed, not answered.
  const relayedLater = (q: Inbound) =>
    msgs.some((m, i) => i > q.index && m.role === "assistant" && textOf(m).includes(q.msg.id));
  const open = questions.filter((q) => !answered.has(q.msg.id) && !relayedLater(q));
  if (open.length > 0) {
    const lines = open.map((q) =>
      tr(
        lang,
        `${q.msg.sender} asks: "${clip(q.msg.body, 400)}" — answer it in the agent's panel. (question ${q.msg.id})`,
        `${q.msg.sender} 提问：“${clip(q.msg.body, 400)}”——请在该成员的面板中回答。（问题 ${q.msg.id}）`,
      ),
    );
    return {
      reasoning: tr(
        lang,
        `${open.length === 1 ? "A sub-agent has a question" : `${open.length} questions came in`} that depends on what the person wants; I relay it instead of guessing.`,
        `有成员提出了取决于你意图的问题；我转达给你，而不是替你猜测。`,
      ),
      content: lines.join("\n\n"),
      toolCalls: [],
    };
  }

  // 2. No team yet for this goal.
  if (created.length === 0) {
    if (!goal) {
      return {
        reasoning: "There is no goal from the person yet.",
        content: "Tell me what the team should work on, and I'll assemble the right sub-agents for it.",
        toolCalls: [],
      };
    }
    if (awaitingCreate) {
      return { reasoning: tr(lang, "The team is still being created.", "团队正在创建中。"), content: tr(lang, "Assembling the team…", "正在组建团队…"), toolCalls: [] };
    }
    if (refused.length > 0) {
      return {
        reasoning: tr(lang, "Every sub-agent I asked for was refused; I report why instead of retrying blindly.", "创建成员的请求都被拒绝了；我说明原因而不是盲目重试。"),
        content: tr(
          lang,
          `I could not assemble a team: ${refused.join("; ")}. Check the roles and limits, then send the goal again.`,
          `无法组建团队：${refused.join("；")}。请检查角色与限制后重新发送目标。`,
        ),
        toolCalls: [],
      };
    }
    if (isGreeting(goal)) {
      return {
        reasoning: tr(lang, "The message is a greeting, not a goal.", "这条消息是问候，不是目标。"),
        content: tr(
          lang,
          "Hello! Describe a goal for the project (for example “Review the authentication code for security issues”) and I'll assemble a team for it.",
          "你好！请描述一个项目目标（例如“审查登录代码的安全问题”），我会为它组建团队。",
        ),
        toolCalls: [],
      };
    }
    if (roles.length === 0) {
      return {
        reasoning: "No roles are available to create.",
        content: tr(lang, "No sub-agent roles are available, so I cannot assemble a team. Add a role to the role library first.", "没有可用的角色，无法组建团队。请先在角色库中添加角色。"),
        toolCalls: [],
      };
    }
    const team = matchRoles(goal, roles);
    // "run the tests" is short but not vague: the agent runs them rather than asking what to focus on
    const ambiguous = isAmbiguousGoal(goal) && runRequest(goal) === null;
    const toolCalls = team.map((m, i) => ({
      name: "create_sub_agent",
      args: {
        role_id: m.role.id,
        task: buildTask(
          goal,
          m.role,
          team.filter((o) => o !== m).map((o) => o.role),
          ambiguous && i === 0,
          lang,
        ),
      },
    }));
    const members = team.map((m) => {
      const purpose = PURPOSE[primaryAspect(m.role)?.key ?? "generic"];
      return tr(lang, `**${m.role.name}** (\`${m.role.id}\`) to ${purpose[0]}`, `**${m.role.name}**（\`${m.role.id}\`）负责${purpose[1]}`);
    });
    const first = team[0]!.role.name;
    const content = [
      tr(
        lang,
        `I'll assemble a team of ${team.length}: ${joinList(members)}. ${team.length === 1 ? "It" : "Each"} will look at the project folder and report back; I'll summarize ${team.length === 1 ? "the" : "their"} findings.`,
        `我将组建一个 ${team.length} 人团队：${joinList(members, "zh")}。每位成员会查看项目文件夹并汇报，我再汇总他们的发现。`,
      ),
      ambiguous
        ? tr(lang, ` The goal leaves room for interpretation, so the ${first} will check with you before reporting.`, `目标还不够明确，${first} 会在汇报前先向你确认。`)
        : "",
    ].join("");
    const aspects = goalAspects(goal).map((a) => a.key);
    const reasoning = tr(
      lang,
      `The goal ${aspects.length ? `asks for ${joinList(aspects)}` : "names no specific kind of work"}; the best matches in the role catalog are ${joinList(team.map((m) => `${m.role.id} (score ${m.score})`))}. I'll give each a concrete task${ambiguous ? " and have the first one ask for clarification, since the goal is vague" : ""}.`,
      `目标涉及${aspects.length ? joinList(aspects, "zh") : "的工作类型不明确"}；角色目录中最匹配的是 ${joinList(team.map((m) => `${m.role.id}（得分 ${m.score}）`), "zh")}。我会给每位成员一个具体任务${ambiguous ? "，并让第一位先澄清目标" : ""}。`,
    );
    return { reasoning, content, toolCalls };
  }

  // 3. Every agent still expected has reported: summarize (once).
  const expected = created.filter((a) => !terminated.has(a.displayName));
  const done = expected.filter((a) => reports.has(a.displayName));
  if (done.length === expected.length) {
    const lastReport = Math.max(-1, ...[...reports.values()].map((r) => r.index));
    const summarized = msgs.some(
      (m, i) => i > lastReport && m.role === "assistant" && SUMMARY_TITLES.some((t) => textOf(m).startsWith(t)),
    );
    if (summarized) {
      return {
        reasoning: tr(lang, "The summary is already written and nothing new has arrived.", "总结已写好，没有新的汇报。"),
        content: tr(lang, "All reports are in and summarized above. Send a new goal to start another round.", "所有汇报都已汇总在上方。发送新的目标即可开始下一轮。"),
        toolCalls: [],
      };
    }
    return {
      reasoning: tr(
        lang,
        `All ${expected.length} expected reports are in; I'll summarize each agent's findings and collect their recommendations as next steps.`,
        `预期的 ${expected.length} 份汇报均已到齐；我将汇总每位成员的发现，并把建议整理为后续步骤。`,
      ),
      content: summarize(goal, lang, created, reports, roles, terminated),
      toolCalls: [],
    };
  }

  // 4. Still waiting.
  const waiting = expected.filter((a) => !reports.has(a.displayName)).map((a) => a.displayName);
  const content =
    done.length === 0
      ? tr(
          lang,
          `Team assembled: ${joinList(waiting)} ${waiting.length === 1 ? "is" : "are"} working on it. I'll summarize when the reports are in.`,
          `团队已组建：${joinList(waiting, "zh")} 正在工作，汇报到齐后我会汇总。`,
        )
      : tr(
          lang,
          `The team is working: ${done.length} of ${expected.length} reports in (waiting for ${joinList(waiting)}).`,
          `团队工作中：已收到 ${done.length}/${expected.length} 份汇报（等待 ${joinList(waiting, "zh")}）。`,
        );
  return { reasoning: tr(lang, "Not every sub-agent has reported yet, so I wait.", "还有成员没有汇报，继续等待。"), content, toolCalls: [] };
}

/** True when the conversation since the goal shows signs of a team: reports, or messages the context window left out. */
function teamMayExist(msgs: readonly ChatMessage[], goalIdx: number): boolean {
  return msgs.some((m, i) => i > goalIdx && m.role === "user" && (isPlaceholderText(textOf(m)) || parseAgentMessage(textOf(m))?.kind === "report"));
}

/** The agents of `goal`'s team in a `list_agents` result: those whose task quotes the goal (the tasks this leader writes do). */
function teamOf(result: unknown, goal: string): CreatedAgent[] {
  const agents = isRecord(result) && Array.isArray(result.agents) ? result.agents : [];
  const quoted = goal.replace(/\s+/g, " ").trim().slice(0, 60);
  return agents.flatMap((a) => {
    const summary = str(a, "task_summary") ?? "";
    const displayName = str(a, "display_name");
    const id = isRecord(a) && typeof a.agent_id === "number" ? a.agent_id : null;
    if (!displayName || !(summary.startsWith(`Goal: "${quoted}`) || summary.startsWith(`目标：“${quoted}`))) return [];
    return [{ displayName, agentId: id, roleId: str(a, "role_id") ?? "" }];
  });
}

/**
 * The offline sub-agent. It works like a careful person new to the project (what it looks at,
 * in which order: ./sub-agent-plan.ts), runs the tests or the build when the goal asks for them
 * and its role may run commands, asks the leader when its task says the goal is unclear, then
 * reports what it actually found (./sub-agent-report.ts), in the language of the goal.
 *
 * It keeps its progress in state it controls, apart from what it says: after each call it keeps
 * what the results showed as notes (`ChatResult.notes`, which the runtime saves on the message's
 * metadata and gives back in its private slice; lib/offline-model/known.ts reads them) and a step
 * count. The context window may leave old results out; the notes stay, so it never loses track,
 * never makes the same call twice, and reports within {@link MAX_STEPS} model calls. Nothing of
 * this bookkeeping is in the text a person reads.
 */
import type { ChatRequest } from "@/lib/models/types";
import { agentText } from "./agent-text";
import { toolNames, type OfflineDecision } from "./history";
import { knownState } from "./known";
import { stepNote } from "./notes";
import { pickerFor, plan } from "./sub-agent-plan";
import { report } from "./sub-agent-report";
import { situation } from "./sub-agent-situation";
import { clip } from "./text";

/** Model calls for one task, the report included: the agent reports by then whatever it has. */
export const MAX_STEPS = 10;

/** Decides the offline sub-agent's answer to one request. */
export function decideSubAgent(req: ChatRequest): OfflineDecision {
  const s = situation(req.messages);
  const t = agentText(s.lang);
  const offered = toolNames(req.tools);
  const goal = s.goal || s.task;
  const k = knownState(req.messages, s.taskIdx, pickerFor(s.kind, goal));

  // Already reported: answer briefly, never report twice unless the report itself failed.
  if (k.reported && !(k.reported.error && k.reported.count < 2)) {
    const after = req.messages.slice(k.reported.at + 1).some((m) => m.role === "user");
    return { reasoning: t.doneReason, content: after ? t.doneNoted : t.doneAlready, toolCalls: [] };
  }
  const step = k.step + 1;
  const notes = [...k.fresh, stepNote(step, MAX_STEPS)];
  const wrapUp = k.reported || step >= MAX_STEPS;
  const next = wrapUp ? [] : plan(s, k, offered);

  if (next.length > 0) {
    const paths = (name: string, quote: (x: string) => string) => next.filter((c) => c.name === name).map((c) => quote(String(c.args.path ?? c.args.query ?? c.args.command)));
    const sep = s.lang === "zh" ? "，" : ", ";
    const parts = [
      ...[["list_files", t.stepListing], ["read_file", t.stepReading]].map(([name, verb]) => {
        const items = paths(name!, (p) => `\`${p}\``);
        return items.length ? `${verb}${s.lang === "zh" ? " " : " "}${t.list(items)}` : "";
      }),
      ...(paths("search_files", (q) => (s.lang === "zh" ? `“${q}”` : `"${q}"`)).length ? [`${t.stepSearching} ${t.list(paths("search_files", (q) => (s.lang === "zh" ? `“${q}”` : `"${q}"`)))}`] : []),
      ...(paths("run_command", (c) => `\`${c}\``).length ? [`${t.stepRunning} ${paths("run_command", (c) => `\`${c}\``)[0]}`] : []),
    ].filter(Boolean);
    const sentence = parts.join(sep);
    return {
      reasoning: t.stepReason(step, k.files.length, sentence, clip(goal, 80)),
      content: s.lang === "zh" ? `${sentence}。` : `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`,
      toolCalls: next,
      notes,
    };
  }

  if (s.askFirst && offered.has("ask_master") && !k.done.has("asked") && !wrapUp) {
    const shown = k.files.map((f) => f.path.split("/").pop() ?? f.path);
    const found = shown.length ? t.askFound(t.list(shown.slice(0, 4))) : t.askEmpty;
    return {
      reasoning: t.askReason,
      content: t.askContent,
      toolCalls: [{ name: "ask_master", args: { question: t.askQuestion(clip(s.goal, 160), found, t.focus[s.kind]) } }],
      notes,
    };
  }

  return report({ roleName: s.roleName, kind: s.kind, goal: s.goal, lang: s.lang, run: s.run, messages: s.messages }, k, offered);
}

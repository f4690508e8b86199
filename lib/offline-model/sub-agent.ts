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
import { agentText, codeSpan } from "./agent-text";
import { fileKind } from "./files";
import { toolNames, type OfflineDecision } from "./history";
import { callKey, knownState } from "./known";
import { didNotes, stepNote } from "./notes";
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
  const wrapUp = k.reported || step >= MAX_STEPS;
  const next = wrapUp ? [] : plan(s, k, offered);
  // what the results showed, every call made so far (this step's too), and the step count
  const done = new Set([...k.done, ...next.map((c) => (c.name === "run_command" ? "ran" : c.name === "ask_master" ? "asked" : callKey(c.name, c.args)))]);
  // The notes of the top level, the README and the manifest are written again, unchanged: the
  // private slice keeps the newest notes, so what every report states outlives the rest.
  const basics = ["listed .", ...[...k.noteOf.keys()].filter((key) => /^read [^/]+$/.test(key) && ["readme", "manifest"].includes(fileKind(key.slice(5))))].flatMap((key) => k.noteOf.get(key) ?? []);
  const notes = [...basics.filter((n) => !k.fresh.includes(n)), ...k.fresh, ...didNotes(done), stepNote(step, MAX_STEPS)];

  if (next.length > 0) {
    const paths = (name: string, quote: (x: string) => string) => next.filter((c) => c.name === name).map((c) => quote(String(c.args.query ?? c.args.command ?? c.args.path)));
    const sep = s.lang === "zh" ? "，" : ", ";
    const parts = [
      ...[["list_files", t.stepListing], ["read_file", t.stepReading]].map(([name, verb]) => {
        const items = paths(name!, (p) => `\`${p}\``);
        return items.length ? `${verb}${s.lang === "zh" ? " " : " "}${t.list(items)}` : "";
      }),
      ...(paths("search_files", codeSpan).length ? [`${t.stepSearching} ${t.list(paths("search_files", codeSpan))}`] : []),
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
    // the files of its kind first: a UI operator names the pages and styles it found
    const mine = (p: string) => (s.kind === "ui" ? ["markup", "style"].includes(fileKind(p)) : fileKind(p) === "source");
    const shown = [...k.files.filter((f) => mine(f.path)), ...k.files.filter((f) => !mine(f.path))].map((f) => f.path.split("/").pop() ?? f.path);
    const found = shown.length ? t.askFound(t.list(shown.slice(0, 4))) : t.askEmpty;
    return {
      reasoning: t.askReason,
      content: t.askContent,
      toolCalls: [{ name: "ask_master", args: { question: t.askQuestion(clip(s.goal, 160), found, t.focus[s.kind]) } }],
      notes: [...basics.filter((n) => !k.fresh.includes(n)), ...k.fresh, ...didNotes(new Set([...done, "asked"])), stepNote(step, MAX_STEPS)],
    };
  }

  return report({ roleName: s.roleName, kind: s.kind, goal: s.goal, lang: s.lang, run: s.run, messages: s.messages }, k, offered);
}

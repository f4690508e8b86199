/**
 * The global and private slices (seed 003 §4.2): a heading plus one line per fact, conclusion or
 * note, filled while the rendered section stays within its token budget, rendered into the
 * system message. Pure.
 */
import { preview, type LineSliceReport, type MemoryCitation, type SliceLine } from "./report";
import { countParagraphTokens, countTokens, MESSAGE_OVERHEAD, truncateToTokens } from "./tokens";
import type { ContextFacts, RecalledMemory } from "./types";

/** The goal may take at most this share of the global budget, so conclusions keep room. */
const GOAL_SHARE = 0.5;
/** Recalled memory may take at most this share of the global budget, so the conversation's own conclusions keep room. */
export const MEMORY_SHARE = 0.4;
/** The sub-heading of recalled memory in the global slice. */
export const MEMORY_HEADING = "Recalled from memory (earlier conversations, most relevant first):";

/** The heading of the global slice in the system message (the offline model reads its conclusions under it). */
export const GLOBAL_HEADING = "## Shared context (global slice: facts and conclusions that stay in view)";
/** The heading of the private slice in the system message (the offline model reads its notes under it). */
export const PRIVATE_NOTES_HEADING = "## Your private notes (newest first)";

interface Candidate {
  label: string;
  line: string;
  /** The text before rendering, for the preview. */
  text: string;
  /** Cut the text to at most this many tokens instead of dropping it (facts only). */
  cutTo?: number;
  /** Stop at the first candidate that does not fit (newest-first lists) instead of trying later ones. */
  stopOnMiss?: boolean;
  /** Left out whatever room is left (over its group's share of the budget); still reported. */
  skip?: boolean;
  memory?: MemoryCitation;
}

/** A rendered slice ("" when nothing went in) and its report. */
export interface LineSlice {
  text: string;
  report: LineSliceReport;
}

/**
 * Fills a heading plus lines while the rendered section stays within `budget`. Each line is
 * counted once (counts are cached per string): the section's count is taken as the sum of its
 * lines' counts plus one per line break, with a margin of one token per line break for the few
 * tokens a join can merge or split, and the rendered section is counted exactly only when that
 * estimate comes within the margin of the budget. So a call counts the new lines and the final
 * section, not the section again after every line.
 */
function fillLines(heading: string, candidates: readonly Candidate[], budget: number): LineSlice {
  const lines: string[] = [];
  const report: SliceLine[] = [];
  const render = (extra?: string) => [heading, ...lines, ...(extra === undefined ? [] : [extra])].join("\n");
  let estimate = countTokens(heading);
  const fitsBudget = (line: string): boolean => {
    const breaks = lines.length + 1;
    const guess = estimate + breaks + countTokens(line);
    return guess + breaks <= budget || countTokens(render(line)) <= budget;
  };
  // Lists stop at their first miss (newest or most relevant first); each list on its own.
  const stopped = new Set<string>();
  for (const c of candidates) {
    let line = c.line;
    let truncated = false;
    if (!stopped.has(c.label) && c.cutTo !== undefined && countTokens(c.text) > c.cutTo) {
      const cut = truncateToTokens(c.text, c.cutTo, () => " …[cut]");
      if (cut !== null) {
        line = c.line.replace(c.text, () => cut);
        truncated = true;
      }
    }
    const fits = !stopped.has(c.label) && !c.skip && fitsBudget(line);
    if (fits) {
      lines.push(line);
      estimate += countTokens(line) + 1;
    }
    else if (c.stopOnMiss && !c.skip) stopped.add(c.label);
    report.push({ label: c.label, preview: preview(c.text), tokens: countTokens(line), included: fits, ...(fits && truncated ? { truncated: true } : {}), ...(c.memory ? { memory: c.memory } : {}) });
  }
  const text = lines.length ? render() : "";
  return { text, report: { budget, used: countTokens(text), over_budget: false, lines: report } };
}

/** Tokens of the blank line between two parts of the system message. */
const SEAM_TOKENS = countTokens("\n\n");

/**
 * Estimated tokens of texts joined by blank lines (empty ones left out): their counts added up,
 * each counted by its paragraphs (`countParagraphTokens`: exact, each paragraph cached), so a
 * joined text whose parts or paragraphs recur is not counted again whole (an agent's system
 * message repeats its role's prompt). A seam between parts can merge or split a token (a final
 * "." and the blank line after it are one token), so this is within a token or two per seam of
 * the exact count.
 */
export function joinedTokens(parts: readonly string[]): number {
  let tokens = 0;
  let seams = -1;
  for (const part of parts) {
    if (!part) continue;
    tokens += countParagraphTokens(part);
    seams++;
  }
  return tokens + Math.max(0, seams) * SEAM_TOKENS;
}

/**
 * Estimated tokens of the system message: the base prompt's parts and the two slices joined by
 * blank lines (see {@link joinedTokens}; a slice's own count is its report's), with the
 * per-message overhead.
 */
export function systemMessageTokens(base: readonly string[], global: LineSlice, priv: LineSlice): number {
  const slices = (global.text ? 1 : 0) + (priv.text ? 1 : 0);
  // each slice joins what comes before it with one seam (the first has none when the base is empty)
  const seams = base.some(Boolean) ? slices : Math.max(0, slices - 1);
  return MESSAGE_OVERHEAD + joinedTokens(base) + global.report.used + priv.report.used + seams * SEAM_TOKENS;
}

/** How a recalled entry reads in the global slice: kind, statement, and the conversation it came from. */
function memoryLineText(m: RecalledMemory): string {
  const statement = m.statement.replace(/\s+/g, " ").trim();
  const from = m.source.conversation_id ? `from ${m.source.conversation_id}${m.source.title ? ` "${m.source.title.replace(/\s+/g, " ").trim().slice(0, 60)}"` : ""}` : "added by a person";
  return `[${m.kind}] ${statement} (${from})`;
}

/**
 * Recalled entries as global-slice candidates, most relevant first: each whole line while the
 * group stays within {@link MEMORY_SHARE} of the budget; the rest are reported as left out.
 */
function memoryCandidates(memory: readonly RecalledMemory[], budget: number): Candidate[] {
  const share = Math.floor(budget * MEMORY_SHARE);
  let used = countTokens(MEMORY_HEADING) + 1;
  let full = false;
  return memory.map((m, i): Candidate => {
    const text = memoryLineText(m);
    const line = i === 0 ? `${MEMORY_HEADING}\n- ${text}` : `- ${text}`;
    const cost = countTokens(`- ${text}`) + 1;
    if (!full && used + cost <= share) used += cost;
    else full = true;
    const memoryCitation: MemoryCitation = { entry_id: m.entry_id, kind: m.kind, level: m.level, conversation_id: m.source.conversation_id, ...(m.source.title ? { title: m.source.title } : {}) };
    return { label: "memory", text, line, stopOnMiss: true, skip: full, memory: memoryCitation };
  });
}

/** The global slice: project folder, target paths, goal, recalled memory, then promoted conclusions newest first. */
export function buildGlobal(facts: ContextFacts, promoted: readonly string[], budget: number, memory: readonly RecalledMemory[] = []): LineSlice {
  const candidates: Candidate[] = [{ label: "project", text: facts.project_path, line: `Project folder: ${facts.project_path}` }];
  const targets = (facts.target_paths ?? []).filter((p) => p.trim());
  if (targets.length) {
    const list = targets.join(", ");
    candidates.push({ label: "targets", text: list, line: `Target paths: ${list}`, cutTo: Math.floor(budget * 0.25) });
  }
  if (facts.goal.trim()) {
    const goal = facts.goal.trim();
    candidates.push({ label: "goal", text: goal, line: `Goal: ${goal}`, cutTo: Math.floor(budget * GOAL_SHARE) });
  }
  candidates.push(...memoryCandidates(memory, budget));
  const conclusions = newestFirst(promoted);
  if (conclusions.length) {
    // the sub-heading only costs tokens when a conclusion follows it; it is added with the first
    candidates.push(...conclusions.map((c, i): Candidate => ({ label: "conclusion", text: c, line: i === 0 ? `Conclusions (newest first):\n- ${c}` : `- ${c}`, stopOnMiss: true })));
  }
  return fillLines(GLOBAL_HEADING, candidates, budget);
}

/** The private slice: the agent's own notes, newest first. */
export function buildPrivate(notes: readonly string[], budget: number): LineSlice {
  return fillLines(PRIVATE_NOTES_HEADING, newestFirst(notes).map((t) => ({ label: "note", text: t, line: `- ${t}`, stopOnMiss: true })), budget);
}

/** Newest first, without blanks or repeats (a repeat counts at its newest position). */
function newestFirst(items: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = items.length - 1; i >= 0; i--) {
    const t = items[i]!.trim();
    if (t && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

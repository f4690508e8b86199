/**
 * Assembles what one model call sees from three slices with token budgets (seed 003 §4.2, §5.1):
 *
 * - global (default 500 tokens): project folder, target paths, goal, promoted conclusions (newest
 *   first until the budget) — rendered into the system message under a heading;
 * - private (default 1,000): the agent's own notes (files already checked…), also in the system
 *   message;
 * - scene (default 3,000): the conversation history itself, trimmed by weighted eviction.
 *
 * Only what is sent is trimmed: the saved history (messages.json) is never touched and the input
 * is never mutated. Pure: no I/O.
 */
import { parseJsonWithin } from "@/lib/input-limits";
import type { ChatMessage, ToolCall as ChatToolCall } from "@/lib/models/types";
import { parseAgentMessage } from "@/lib/protocol/messages";
import type { Message } from "@/lib/store/schemas";
import { isInterAgentText } from "./promotions";
import { preview, type LineSliceReport, type SceneItem, type SceneWeight, type SliceLine, type SliceReport } from "./report";
import { countTokens, messageTokens, TOKENIZER_NAME, truncateToTokens } from "./tokens";

/** Token budgets of the three slices. */
export interface ContextBudgets {
  global: number;
  scene: number;
  private: number;
}

/** Defaults from the seed: global ≤ 500, scene within 2,000–4,000, private 1,000. */
export const DEFAULT_BUDGETS: Readonly<ContextBudgets> = { global: 500, scene: 3000, private: 1000 };

/** The conversation facts every call states (global slice). */
export interface ContextFacts {
  project_path: string;
  goal: string;
  target_paths?: string[];
}

/** Input of {@link buildModelInput}. */
export interface BuildModelInputOptions {
  /** Whose call: decides which message is "the newest instruction". */
  kind: "leader" | "agent";
  /**
   * The base system prompt. When `messages` starts with system messages (an agent's saved
   * prompt), those come first and this is appended to them; pass "" to add nothing.
   */
  system: string;
  /** The whole saved history (messages.json), oldest first. Not mutated. */
  messages: readonly Message[];
  facts: ContextFacts;
  /** Conclusions marked persistent, oldest first (see `collectPromotions`); the newest are kept. */
  promoted?: readonly string[];
  /** The agent's own notes, oldest first (see `deriveWorkNotes`); the newest are kept. */
  privateNotes?: readonly string[];
  budgets?: Partial<ContextBudgets>;
}

/** What to send, and what went into it. */
export interface ModelInput {
  /** `[system, ...scene]`, valid for the OpenAI chat API. */
  messages: ChatMessage[];
  report: SliceReport;
}

/** Largest share of the scene budget one non-instruction item may take before its texts are cut. */
const ITEM_SHARE = 0.5;
/** Below this many tokens a text is not worth cutting further. */
const MIN_CUT_TOKENS = 24;
/** The goal may take at most this share of the global budget, so conclusions keep room. */
const GOAL_SHARE = 0.5;

const GLOBAL_HEADING = "## Shared context (global slice: facts and conclusions that stay in view)";
const PRIVATE_HEADING = "## Your private notes (newest first)";

/**
 * The conversation's goal for the global slice: the first plain person message of the leader's
 * history (not an inter-agent text), trimmed; null when there is none yet.
 */
export function conversationGoal(leaderMessages: readonly Message[]): string | null {
  const first = leaderMessages.find((m) => m.role === "user" && m.metadata?.message_source !== "system" && m.content?.trim() && !isInterAgentText(m.content));
  return first?.content?.trim() ?? null;
}

/** The line that stands in for `n` messages left out of the scene. */
export function placeholderText(n: number): string {
  return `[${n} earlier message${n === 1 ? "" : "s"} omitted here to fit the context budget; the full history is saved]`;
}

/**
 * Builds the messages for one model call and a report of each slice.
 *
 * Scene eviction, lowest weight first: ordinary flow (assistant text, tool calls with their
 * results) before negotiation (inter-agent texts `来自 …` and older person messages) — and never
 * the newest instruction (the latest plain person message for the leader; the current task
 * message for an agent). Within a weight the newest are kept first; the single most recent item
 * (what the model is answering now) is kept right after the instruction, whatever its weight. An assistant message with
 * tool calls and its tool results are one item: kept or dropped together. A non-instruction item
 * larger than half the scene budget has its long texts cut (with a note saying so) rather than
 * vanishing, so an agent still sees the start of a huge file it just read. Each run of dropped
 * messages is replaced by one placeholder user line, counted in the budget.
 *
 * The scene never exceeds its budget, except when the newest instruction alone is larger: then it
 * is sent whole and the report says `over_budget`.
 */
export function buildModelInput(options: BuildModelInputOptions): ModelInput {
  const budgets: ContextBudgets = { ...DEFAULT_BUDGETS, ...stripUndefined(options.budgets ?? {}) };
  const history = options.messages;

  let lead = 0;
  while (lead < history.length && history[lead]!.role === "system") lead++;
  // an agent's saved system message (base + role prompt) comes first; `system` adds to it
  const systemText = [...history.slice(0, lead).map((m) => m.content ?? ""), options.system]
    .map((t) => t.trim())
    .filter(Boolean)
    .join("\n\n");

  const global = buildGlobal(options.facts, options.promoted ?? [], budgets.global);
  const priv = buildLines(PRIVATE_HEADING, "note", newestFirst(options.privateNotes ?? []), budgets.private);
  const scene = buildScene(options.kind, history, lead, budgets.scene);

  const systemMessage: ChatMessage = { role: "system", content: [systemText, global.text, priv.text].filter(Boolean).join("\n\n") };
  const messages = [systemMessage, ...scene.messages];
  const report: SliceReport = {
    kind: options.kind,
    tokenizer: TOKENIZER_NAME,
    system_tokens: countTokens(systemText),
    total_tokens: messageTokens(systemMessage) + scene.report.used,
    global: global.report,
    private: priv.report,
    scene: scene.report,
  };
  return { messages, report };
}

// ------------------------------------------------------------------ global and private slices

interface Candidate {
  label: string;
  line: string;
  /** The text before rendering, for the preview. */
  text: string;
  /** Cut the text to at most this many tokens instead of dropping it (facts only). */
  cutTo?: number;
  /** Stop at the first candidate that does not fit (newest-first lists) instead of trying later ones. */
  stopOnMiss?: boolean;
}

interface LineSlice {
  text: string;
  report: LineSliceReport;
}

/** Fills a heading plus lines while the rendered section stays within `budget`. */
function fillLines(heading: string, candidates: readonly Candidate[], budget: number): LineSlice {
  const lines: string[] = [];
  const report: SliceLine[] = [];
  const render = (extra?: string) => [heading, ...lines, ...(extra === undefined ? [] : [extra])].join("\n");
  let stopped = false;
  for (const c of candidates) {
    let line = c.line;
    let truncated = false;
    if (!stopped && c.cutTo !== undefined && countTokens(c.text) > c.cutTo) {
      const cut = truncateToTokens(c.text, c.cutTo, () => " …[cut]");
      if (cut !== null) {
        line = c.line.replace(c.text, () => cut);
        truncated = true;
      }
    }
    const fits = !stopped && countTokens(render(line)) <= budget;
    if (fits) lines.push(line);
    else if (c.stopOnMiss) stopped = true;
    report.push({ label: c.label, preview: preview(c.text), tokens: countTokens(line), included: fits, ...(fits && truncated ? { truncated: true } : {}) });
  }
  const text = lines.length ? render() : "";
  return { text, report: { budget, used: countTokens(text), over_budget: false, lines: report } };
}

function buildGlobal(facts: ContextFacts, promoted: readonly string[], budget: number): LineSlice {
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
  const conclusions = newestFirst(promoted);
  if (conclusions.length) {
    // the sub-heading only costs tokens when a conclusion follows it; it is added with the first
    candidates.push(...conclusions.map((c, i): Candidate => ({ label: "conclusion", text: c, line: i === 0 ? `Conclusions (newest first):\n- ${c}` : `- ${c}`, stopOnMiss: true })));
  }
  return fillLines(GLOBAL_HEADING, candidates, budget);
}

function buildLines(heading: string, label: string, items: readonly string[], budget: number): LineSlice {
  return fillLines(heading, items.map((t) => ({ label, text: t, line: `- ${t}`, stopOnMiss: true })), budget);
}

/** Newest first, without blanks or repeats (a repeat counts at its newest position). */
function newestFirst(items: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const t = items[i]!.trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

// ------------------------------------------------------------------ scene slice

interface Unit {
  /** History indices, in the order they are sent (assistant first, then its tool results). */
  indices: number[];
  /** The messages as they would be sent (copies, possibly cut). */
  sent: ChatMessage[];
  tokens: number;
  weight: SceneWeight;
  truncated: boolean[];
  /** Never sendable (a tool result without its call): always dropped. */
  invalid: boolean;
}

const WEIGHT_RANK: Readonly<Record<SceneWeight, number>> = { system: 1, flow: 1, negotiation: 2, instruction: 3 };

function buildScene(kind: "leader" | "agent", history: readonly Message[], start: number, budget: number): { messages: ChatMessage[]; report: SliceReport["scene"] } {
  const instruction = findInstruction(kind, history, start);
  const units = groupUnits(history, start, instruction);
  const cap = Math.floor(budget * ITEM_SHARE);
  for (const u of units) if (u.weight !== "instruction" && !u.invalid && u.tokens > cap) shrinkUnit(u, cap);

  const kept = units.map((u) => u.weight === "instruction");
  const total = () => sceneTokens(units, kept);
  // Keep-priority: the most recent item first (it is what the model answers: the latest output or
  // message), then weight, then recency. Greedy fill: an item that does not fit is skipped and
  // smaller, less valuable items may still use the room left.
  const latest = units.findLastIndex((u) => !u.invalid);
  const order = units
    .map((u, i) => i)
    .filter((i) => !units[i]!.invalid && units[i]!.weight !== "instruction")
    .sort((a, b) => Number(b === latest) - Number(a === latest) || WEIGHT_RANK[units[b]!.weight] - WEIGHT_RANK[units[a]!.weight] || b - a);
  for (const i of order) {
    kept[i] = true;
    if (total() > budget) kept[i] = false;
  }

  const messages: ChatMessage[] = [];
  const items: SceneItem[] = [];
  const droppedIndices: number[] = [];
  let gap = 0;
  let placeholders = 0;
  let used = 0;
  const flush = () => {
    if (!gap) return;
    const p: ChatMessage = { role: "user", content: placeholderText(gap) };
    messages.push(p);
    used += messageTokens(p);
    placeholders++;
    gap = 0;
  };
  units.forEach((u, i) => {
    if (!kept[i]) {
      gap += u.indices.length;
      droppedIndices.push(...u.indices);
      return;
    }
    flush();
    u.sent.forEach((m, k) => {
      const index = u.indices[k]!;
      const tokens = messageTokens(m);
      messages.push(m);
      used += tokens;
      const id = history[index]!.message_id;
      items.push({
        index,
        ...(id ? { id } : {}),
        role: m.role,
        weight: u.weight,
        tokens,
        preview: preview(m.content || describeCalls(m.tool_calls)),
        ...(u.truncated[k] ? { truncated: true } : {}),
      });
    });
  });
  flush();

  return {
    messages,
    report: {
      budget,
      used,
      over_budget: used > budget,
      items,
      dropped_ranges: toRanges(droppedIndices),
      dropped_count: droppedIndices.length,
      placeholders,
      instruction_index: instruction,
    },
  };
}

/** Tokens the scene would use with `kept`: kept messages plus one placeholder per dropped run. */
function sceneTokens(units: readonly Unit[], kept: readonly boolean[]): number {
  let sum = 0;
  let gap = 0;
  units.forEach((u, i) => {
    if (kept[i]) {
      if (gap) sum += placeholderTokens(gap);
      gap = 0;
      sum += u.tokens;
    } else {
      gap += u.indices.length;
    }
  });
  if (gap) sum += placeholderTokens(gap);
  return sum;
}

function placeholderTokens(n: number): number {
  return messageTokens({ role: "user", content: placeholderText(n) });
}

/**
 * History index of the newest instruction: for the leader the latest plain person message (not an
 * inter-agent text), for an agent its latest task (`来自 … 的任务发布`). Falls back to the latest
 * user message of any kind, so a call always keeps what it answers to.
 */
function findInstruction(kind: "leader" | "agent", history: readonly Message[], start: number): number | null {
  let fallback: number | null = null;
  for (let i = history.length - 1; i >= start; i--) {
    const m = history[i]!;
    if (m.role !== "user") continue;
    fallback ??= i;
    // Notes the runtime writes for the leader (message_source "system") are not the person's instruction.
    const fromSystem = m.metadata?.message_source === "system";
    if (kind === "leader" ? !fromSystem && !isInterAgentText(m.content) : parseAgentMessage(m.content ?? "")?.kind === "task") return i;
  }
  return fallback;
}

/** Splits the history (from `start`) into items that are kept or dropped as a whole. */
function groupUnits(history: readonly Message[], start: number, instruction: number | null): Unit[] {
  const claimed = new Set<number>();
  const units: Unit[] = [];
  for (let i = start; i < history.length; i++) {
    if (claimed.has(i)) continue;
    const m = history[i]!;
    if (m.role === "assistant" && m.tool_calls?.length) {
      // its results, wherever they are (normally right after it); sent right after it, as the API requires
      const results: number[] = [];
      const answered = new Set<string>();
      const ids = new Set(m.tool_calls.map((c) => c.id));
      for (let j = i + 1; j < history.length; j++) {
        const r = history[j]!;
        if (r.role === "tool" && r.tool_call_id && ids.has(r.tool_call_id) && !answered.has(r.tool_call_id) && !claimed.has(j)) {
          results.push(j);
          answered.add(r.tool_call_id);
          claimed.add(j);
        }
      }
      const call = toChat(m);
      // a call without a result would be refused by the API; only answered calls are sent
      const calls = (call.tool_calls ?? []).filter((c) => answered.has(c.id));
      if (calls.length) call.tool_calls = calls;
      else delete call.tool_calls;
      const invalid = !calls.length && !call.content;
      if (!calls.length && call.content === null) call.content = "";
      units.push(unit([i, ...results], [call, ...results.map((j) => toChat(history[j]!))], "flow", invalid));
      continue;
    }
    if (m.role === "tool") {
      // a result whose call is not in the history: sending it would make the chat invalid
      units.push(unit([i], [toChat(m)], "flow", true));
      continue;
    }
    let weight: SceneWeight = "flow";
    if (i === instruction) weight = "instruction";
    else if (m.role === "user") weight = "negotiation";
    else if (m.role === "system") weight = "system";
    units.push(unit([i], [toChat(m)], weight, false));
  }
  return units;
}

function unit(indices: number[], sent: ChatMessage[], weight: SceneWeight, invalid: boolean): Unit {
  return { indices, sent, weight, invalid, truncated: sent.map(() => false), tokens: sent.reduce((n, m) => n + messageTokens(m), 0) };
}

/** A copy in the chat-completions shape (what the runtime's `toChatMessages` produced). */
function toChat(m: Message): ChatMessage {
  const out: ChatMessage = { role: m.role, content: m.content };
  if (m.tool_calls?.length) {
    out.tool_calls = m.tool_calls.map((c): ChatToolCall => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } }));
  }
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  return out;
}

const cutNote = (kept: number, total: number) => `\n…[cut to fit the context budget: first ${kept} of ${total} tokens shown]`;

/**
 * Cuts the long texts of a unit (contents, and string values inside tool-call arguments) in
 * proportion to their size so the unit fits in `cap` tokens, roughly. Tool-call arguments stay
 * valid JSON.
 */
function shrinkUnit(u: Unit, cap: number): void {
  interface Part {
    msg: number;
    tokens: number;
    apply: (allowed: number) => boolean;
  }
  const parts: Part[] = [];
  u.sent.forEach((m, k) => {
    if (m.content) {
      const text = m.content;
      parts.push({
        msg: k,
        tokens: countTokens(text),
        apply: (allowed) => {
          const cut = truncateToTokens(text, allowed, cutNote);
          if (cut === null || cut === text) return false;
          m.content = cut;
          return true;
        },
      });
    }
    m.tool_calls?.forEach((call, c) => {
      const args = call.function.arguments;
      parts.push({
        msg: k,
        tokens: countTokens(args),
        apply: (allowed) => {
          const cut = shrinkArguments(args, allowed);
          if (cut === null) return false;
          m.tool_calls![c] = { ...call, function: { ...call.function, arguments: cut } };
          return true;
        },
      });
    });
  });
  const partTokens = parts.reduce((n, p) => n + p.tokens, 0);
  const room = cap - (u.tokens - partTokens);
  if (room <= 0 || partTokens === 0) return;
  for (const p of parts) {
    const allowed = Math.max(MIN_CUT_TOKENS, Math.floor((p.tokens * room) / partTokens));
    if (p.tokens > allowed && p.apply(allowed)) u.truncated[p.msg] = true;
  }
  u.tokens = u.sent.reduce((n, m) => n + messageTokens(m), 0);
}

/** Tool-call arguments with their long string values cut so the JSON is about `allowed` tokens; null when it cannot be cut. */
function shrinkArguments(args: string, allowed: number): string | null {
  // model-written JSON: nesting is checked before parsing (see lib/input-limits)
  const result = parseJsonWithin(args, Number.POSITIVE_INFINITY);
  if (!result.ok) return null;
  const parsed = result.value;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const entries = Object.entries(parsed as Record<string, unknown>);
  const strings = entries.filter((e): e is [string, string] => typeof e[1] === "string");
  const stringTokens = strings.reduce((n, [, v]) => n + countTokens(v), 0);
  const room = allowed - (countTokens(args) - stringTokens);
  if (room <= 0 || stringTokens === 0) return null;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    if (typeof v !== "string") {
      out[k] = v;
      continue;
    }
    const share = Math.max(MIN_CUT_TOKENS, Math.floor((countTokens(v) * room) / stringTokens));
    const cut = countTokens(v) > share ? truncateToTokens(v, share, cutNote) : v;
    if (cut !== null && cut !== v) changed = true;
    out[k] = cut ?? v;
  }
  return changed ? JSON.stringify(out) : null;
}

function describeCalls(calls: readonly ChatToolCall[] | undefined): string {
  return (calls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments})`).join(" ");
}

/** Sorted indices as inclusive `[from, to]` ranges. */
function toRanges(indices: readonly number[]): Array<[number, number]> {
  const sorted = [...indices].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i === last[1] + 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

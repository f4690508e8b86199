/**
 * Fills the scene slice from a history's items (scene-units.ts) within its token budget, and
 * reports what went in. Pure.
 *
 * The rule (unchanged): the newest instruction is always kept; then the single most recent item;
 * then negotiation (inter-agent texts `来自 …`, older person messages) newest first; then flow
 * (assistant text, tool calls with their results) newest first. Each is kept when the scene,
 * with one placeholder line per run of dropped messages, still fits; one that does not fit is
 * skipped and smaller, older ones may still use the room.
 *
 * The work is bounded by what fits, not by the history. The scene's total is updated per
 * candidate from its neighbours (range sums) instead of re-summed. And candidates are visited
 * only where one can fit: next to a kept item or at either end (a bounded set), or, inside a run
 * of dropped items, the newest one small enough — found in O(log n) by scene-units' index, with
 * the exact placeholder cost of that part of the run (see {@link placeholderClass}).
 */
import type { ChatMessage } from "@/lib/models/types";
import type { Message } from "@/lib/contracts/on-disk";
import { cloneChat } from "./chat";
import type { SceneItem, SceneSliceReport } from "./report";
import { FLOW, NEGOTIATION, type SceneUnits } from "./scene-units";
import { messageTokens } from "./tokens";
import { placeholderText } from "./types";

/** The scene as sent, its report, and how many items the fill looked at. */
export interface SceneResult {
  messages: ChatMessage[];
  report: SceneSliceReport;
  visited: number;
}

// The few distinct placeholder costs are remembered.
const placeholderCosts = new Map<number, number>();

/** Tokens of the placeholder for `n` dropped messages (0 for none). */
function placeholderTokens(n: number): number {
  if (n === 0) return 0;
  let cost = placeholderCosts.get(n);
  if (cost === undefined) {
    cost = messageTokens({ role: "user", content: placeholderText(n) });
    if (placeholderCosts.size >= 4096) placeholderCosts.clear();
    placeholderCosts.set(n, cost);
  }
  return cost;
}

/**
 * The range `[first, last]` of counts whose placeholder costs the same as `n`'s: 1 alone, then
 * every count with the same number of digits. The number is its own pre-tokens (one per three
 * digits), the rest of the line is fixed, so only these change the cost; scene-fill.test.ts
 * checks it.
 */
export function placeholderClass(n: number): [number, number] {
  if (n <= 1) return [n, n];
  if (n < 10) return [2, 9];
  let low = 10;
  while (low * 10 <= n) low *= 10;
  return [low, low * 10 - 1];
}

/** Fills the scene of a `kind` call from `units` (updated to `history`) within `budget` tokens. */
export function fillScene(kind: "leader" | "agent", history: readonly Message[], units: SceneUnits, budget: number): SceneResult {
  const n = units.count;
  const instruction = units.instruction(kind);
  const latest = units.lastValid;
  const tokensOf = (at: number) => units.tokens(at, at === instruction);
  const kept: number[] = [];
  let total: number;
  if (instruction >= 0) {
    kept.push(instruction);
    total = tokensOf(instruction) + placeholderTokens(units.messagesIn(0, instruction)) + placeholderTokens(units.messagesIn(instruction + 1, n));
  } else {
    total = placeholderTokens(units.messagesIn(0, n));
  }
  let visited = 0;

  /** How many kept items are below `at`. */
  const keptBelow = (at: number): number => {
    let p = 0;
    let q = kept.length;
    while (p < q) {
      const mid = (p + q) >> 1;
      if (kept[mid]! < at) p = mid + 1;
      else q = mid;
    }
    return p;
  };

  /** Keeps `at` when the scene still fits with it (the scene's total changes by its tokens and its run's placeholders). */
  const tryKeep = (at: number): boolean => {
    visited++;
    const p = keptBelow(at);
    const before = p > 0 ? kept[p - 1]! : -1;
    const after = p < kept.length ? kept[p]! : n;
    const left = units.messagesIn(before + 1, at);
    const right = units.messagesIn(at + 1, after);
    const delta = tokensOf(at) + placeholderTokens(left) + placeholderTokens(right) - placeholderTokens(left + units.messagesIn(at, at + 1) + right);
    if (total + delta > budget) return false;
    kept.splice(p, 0, at);
    total += delta;
    return true;
  };

  /**
   * The newest item at or below `top` (and inside the dropped run between kept items `a` and `b`,
   * not next to either) of class `cls` that fits, or -1. Within one part of the run the
   * placeholders it would split the run into cost the same, so "fits" is a bound on its tokens.
   */
  const fittingInRun = (cls: number, a: number, b: number, top: number): number => {
    const base = units.messagesBefore(a + 1);
    const end = units.messagesBefore(b);
    const whole = placeholderTokens(end - base);
    for (const low = a + 2; top >= low; ) {
      const left = units.messagesBefore(top) - base;
      const right = end - units.messagesBefore(top + 1);
      const [leftClass] = placeholderClass(left);
      const [, rightClass] = placeholderClass(right);
      // the part of the run, below `top`, where both placeholders stay in their cost classes
      const bottom = Math.max(low, units.firstWithMessagesBefore(base + leftClass), units.firstWithMessagesBefore(end - rightClass) - 1);
      const hit = units.lastFitting(cls, top + 1, budget - total - (placeholderTokens(left) + placeholderTokens(right) - whole));
      if (hit >= bottom) return hit;
      top = bottom - 1;
    }
    return -1;
  };

  if (latest >= 0 && latest !== instruction) tryKeep(latest);
  for (const cls of [NEGOTIATION, FLOW]) {
    // Newest first. Next to a kept item (or at either end) a candidate adds no placeholder: those
    // are all visited. Any other one is visited only when it fits.
    const near = [...new Set([0, n - 1, ...kept.flatMap((k) => [k - 1, k + 1])])].filter((at) => at >= 0 && at < n).sort((a, b) => b - a);
    let nearAt = 0;
    let justKept = -1;
    for (let pos = n; ; ) {
      while (nearAt < near.length && near[nearAt]! >= pos) nearAt++;
      const next = Math.max(nearAt < near.length ? near[nearAt]! : -1, justKept < pos ? justKept : -1);
      const k = keptBelow(pos);
      const a = k > 0 ? kept[k - 1]! : -1;
      const b = k < kept.length ? kept[k]! : n;
      const at = Math.max(next, fittingInRun(cls, a, b, Math.min(pos, b - 1) - 1));
      if (at <= a) {
        // nothing left to look at in this run: on to the one below the kept item `a`
        if (a < 0) break;
        pos = a;
        continue;
      }
      pos = at;
      if (units.classOf(at) !== cls || !units.isValid(at) || at === instruction || at === latest) continue;
      if (tryKeep(at)) justKept = at - 1;
    }
  }
  return { ...assemble(history, units, kept, instruction, budget), visited };
}

/** The messages and report for the kept items, in history order, with a placeholder per dropped run. */
function assemble(history: readonly Message[], units: SceneUnits, kept: readonly number[], instruction: number, budget: number): Omit<SceneResult, "visited"> {
  const messages: ChatMessage[] = [];
  const items: SceneItem[] = [];
  const keptIndices: number[] = [];
  let placeholders = 0;
  let used = 0;
  const gap = (from: number, to: number) => {
    const dropped = units.messagesIn(from, to);
    if (!dropped) return;
    const p: ChatMessage = { role: "user", content: placeholderText(dropped) };
    messages.push(p);
    used += placeholderTokens(dropped);
    placeholders++;
  };
  let next = 0;
  for (const at of kept) {
    gap(next, at);
    next = at + 1;
    const variant = units.variant(at, at === instruction);
    const indices = units.indices(at);
    const weight = at === instruction ? "instruction" : units.weight(at);
    variant.sent.forEach((m, k) => {
      const index = indices[k]!;
      const tokens = variant.sentTokens[k]!;
      messages.push(cloneChat(m));
      keptIndices.push(index);
      used += tokens;
      const id = history[index]!.message_id;
      items.push({ index, ...(id ? { id } : {}), role: m.role, weight, tokens, preview: variant.previews[k]!, ...(variant.truncated?.[k] ? { truncated: true } : {}) });
    });
  }
  gap(next, units.count);

  // Every history message from the first non-system one on belongs to one item: what was not
  // kept was dropped.
  keptIndices.sort((a, b) => a - b);
  const dropped: Array<[number, number]> = [];
  let from = units.lead;
  for (const index of keptIndices) {
    if (index > from) dropped.push([from, index - 1]);
    from = index + 1;
  }
  if (from < history.length) dropped.push([from, history.length - 1]);
  return {
    messages,
    report: {
      budget,
      used,
      over_budget: used > budget,
      items,
      dropped_ranges: dropped,
      dropped_count: history.length - units.lead - keptIndices.length,
      placeholders,
      instruction_index: instruction >= 0 ? units.indices(instruction)[0]! : null,
    },
  };
}

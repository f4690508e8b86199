/**
 * The context as it was built before `ContextWindow`: every call walks the whole history (pairs
 * tool calls with results, counts every message, fills the scene by re-summing it per
 * candidate). Kept unchanged as the oracle the incremental path is tested against
 * (`window.test.ts`: same output, byte for byte) and as the bench's "from scratch" figure. Not
 * used by the app.
 */
import type { ChatMessage } from "@/lib/models/types";
import { parseAgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { describeCalls, toChat } from "@/lib/context/chat";
import { cutItem } from "@/lib/context/cut";
import { buildGlobal, buildPrivate, joinedTokens, systemMessageTokens } from "@/lib/context/lines";
import { isGoalMessage, isInterAgentText, messagePromotions, messageWorkNotes } from "@/lib/context/markers";
import { preview, type SceneItem, type SceneWeight, type SliceReport } from "@/lib/context/report";
import { messageTokens, TOKENIZER_NAME } from "@/lib/context/tokens";
import { placeholderText, resolveBudgets, type BuildModelInputOptions, type ModelInput } from "@/lib/context/types";

/** `buildModelInput` computed from the whole history, with no state kept between calls. */
export function buildModelInputFromScratch(options: BuildModelInputOptions): ModelInput {
  const budgets = resolveBudgets(options.budgets);
  const history = options.messages;

  let lead = 0;
  while (lead < history.length && history[lead]!.role === "system") lead++;
  const leadText = history.slice(0, lead).map((m) => (m.content ?? "").trim()).filter(Boolean).join("\n\n");
  const base = [leadText, options.system.trim()];
  const systemText = base.filter(Boolean).join("\n\n");

  const global = buildGlobal(options.facts, options.promoted ?? [], budgets.global);
  const priv = buildPrivate(options.privateNotes ?? [], budgets.private);
  const scene = buildScene(options.kind, history, lead, budgets.scene);

  const systemMessage: ChatMessage = { role: "system", content: [systemText, global.text, priv.text].filter(Boolean).join("\n\n") };
  const report: SliceReport = {
    kind: options.kind,
    tokenizer: TOKENIZER_NAME,
    system_tokens: joinedTokens(base),
    total_tokens: systemMessageTokens(base, global, priv) + scene.report.used,
    global: global.report,
    private: priv.report,
    scene: scene.report,
  };
  return { messages: [systemMessage, ...scene.messages], report };
}

/** `conversationGoal` from the whole history. */
export function conversationGoalFromScratch(leaderMessages: readonly Message[]): string | null {
  return leaderMessages.find(isGoalMessage)?.content?.trim() ?? null;
}

/** `collectPromotions` from the whole history. */
export function collectPromotionsFromScratch(messages: readonly Message[]): string[] {
  return lastSeenOrder(messages.flatMap(messagePromotions));
}

/** `deriveWorkNotes` from the whole history. */
export function deriveWorkNotesFromScratch(messages: readonly Message[]): string[] {
  return lastSeenOrder(messages.flatMap(messageWorkNotes));
}

function lastSeenOrder(items: readonly string[]): string[] {
  const seen = new Map<string, true>();
  for (const item of items) {
    seen.delete(item);
    seen.set(item, true);
  }
  return [...seen.keys()];
}

interface Unit {
  indices: number[];
  sent: ChatMessage[];
  tokens: number;
  weight: SceneWeight;
  truncated: boolean[];
  invalid: boolean;
}

const ITEM_SHARE = 0.5;
const WEIGHT_RANK: Readonly<Record<SceneWeight, number>> = { system: 1, flow: 1, negotiation: 2, instruction: 3 };

function buildScene(kind: "leader" | "agent", history: readonly Message[], start: number, budget: number): { messages: ChatMessage[]; report: SliceReport["scene"] } {
  const instruction = findInstruction(kind, history, start);
  const units = groupUnits(history, start, instruction);
  const cap = Math.floor(budget * ITEM_SHARE);
  for (const u of units) {
    if (u.weight !== "instruction" && !u.invalid && u.tokens > cap) {
      const cut = cutItem(u.sent, u.sent.map(messageTokens), cap);
      Object.assign(u, { sent: cut.sent, truncated: cut.truncated, tokens: cut.tokens });
    }
  }

  const kept = units.map((u) => u.weight === "instruction");
  const total = () => sceneTokens(units, kept);
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
      items.push({ index, ...(id ? { id } : {}), role: m.role, weight: u.weight, tokens, preview: preview(m.content || describeCalls(m.tool_calls)), ...(u.truncated[k] ? { truncated: true } : {}) });
    });
  });
  flush();

  return {
    messages,
    report: { budget, used, over_budget: used > budget, items, dropped_ranges: toRanges(droppedIndices), dropped_count: droppedIndices.length, placeholders, instruction_index: instruction },
  };
}

function sceneTokens(units: readonly Unit[], kept: readonly boolean[]): number {
  let sum = 0;
  let gap = 0;
  units.forEach((u, i) => {
    if (kept[i]) {
      if (gap) sum += messageTokens({ role: "user", content: placeholderText(gap) });
      gap = 0;
      sum += u.tokens;
    } else {
      gap += u.indices.length;
    }
  });
  if (gap) sum += messageTokens({ role: "user", content: placeholderText(gap) });
  return sum;
}

function findInstruction(kind: "leader" | "agent", history: readonly Message[], start: number): number | null {
  let fallback: number | null = null;
  for (let i = history.length - 1; i >= start; i--) {
    const m = history[i]!;
    if (m.role !== "user") continue;
    fallback ??= i;
    const fromSystem = m.metadata?.message_source === "system";
    if (kind === "leader" ? !fromSystem && !isInterAgentText(m.content) : parseAgentMessage(m.content ?? "")?.kind === "task") return i;
  }
  return fallback;
}

function groupUnits(history: readonly Message[], start: number, instruction: number | null): Unit[] {
  const claimed = new Set<number>();
  const units: Unit[] = [];
  for (let i = start; i < history.length; i++) {
    if (claimed.has(i)) continue;
    const m = history[i]!;
    if (m.role === "assistant" && m.tool_calls?.length) {
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
      const calls = (call.tool_calls ?? []).filter((c) => answered.has(c.id));
      if (calls.length) call.tool_calls = calls;
      else delete call.tool_calls;
      const invalid = !calls.length && !call.content;
      if (!calls.length && call.content === null) call.content = "";
      units.push(unit([i, ...results], [call, ...results.map((j) => toChat(history[j]!))], "flow", invalid));
      continue;
    }
    if (m.role === "tool") {
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

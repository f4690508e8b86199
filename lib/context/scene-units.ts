/**
 * The scene's items, kept up to date as a history grows: each message is taken in once, paired
 * with its tool call, counted and (when too large for its share of the budget) cut once, instead
 * of on every model call. An item is kept or dropped as a whole: an assistant message with tool
 * calls and its results, or one other message. Indexed for the fill (scene-fill.ts): messages per
 * item as range sums, and each item's tokens by eviction class. Pure (no I/O).
 *
 * Pairing, as the API requires and as it always was: a tool result belongs to the earliest
 * assistant message before it that called its id and has no result for that id yet; a result
 * whose call is not in the history, and a call with no result and no text, can never be sent.
 */
import type { ChatMessage } from "@/lib/models/types";
import { parseAgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { describeCalls, toChat } from "./chat";
import { cutItem, type CutItem } from "./cut";
import { isInterAgentText } from "./markers";
import { preview, type SceneWeight } from "./report";
import { callTokens, countTokens, MESSAGE_OVERHEAD, messageTokens } from "./tokens";
import { MinTree, SumTree } from "./trees";

/** Eviction class of person and inter-agent messages: dropped after flow. */
export const NEGOTIATION = 0;
/** Eviction class of everything else (assistant text, tool calls and results, stray system messages). */
export const FLOW = 1;

/** How an item is sent. */
export interface ItemVariant {
  sent: readonly ChatMessage[];
  sentTokens: readonly number[];
  /** Per message: a text was cut to fit. */
  truncated: readonly boolean[] | null;
  /** Per message: its one-line preview for the report. */
  previews: readonly string[];
}

interface CallState {
  message: Message;
  /** Tokens of the assistant message without any call. */
  head: number;
  /** Tokens each of its calls adds, by position in `tool_calls`. */
  perCall: number[];
  answered: Set<string>;
  results: ChatMessage[];
  resultTokens: number[];
}

interface Item {
  /** History indices in the order sent: the assistant message, then its results as they came. */
  indices: number[];
  weight: Exclude<SceneWeight, "instruction">;
  /** Never sendable: always dropped. */
  invalid: boolean;
  sent: ChatMessage[];
  sentTokens: number[];
  tokens: number;
  /** The item cut to the cap, when it is larger (and sendable). */
  cut: CutItem | null;
  /** Previews of `sent` and of `cut.sent`, made when first reported. */
  previews: string[] | null;
  cutPreviews: string[] | null;
  call: CallState | null;
}

/** The scene's items of one history, updated from the messages appended since the last call. */
export class SceneUnits {
  #items: Item[] = [];
  /** Leading system messages: they go into the system message, not the scene. */
  #lead = 0;
  #leadText = "";
  #consumed = 0;
  #cap = Number.NaN;
  #lengths = new SumTree();
  #keys: [MinTree, MinTree] = [new MinTree(), new MinTree()];
  /** Calls without a result yet, per id: the items that made them, oldest first. */
  #pending = new Map<string, number[]>();
  #lastValid = -1;
  #latestUser = -1;
  #leaderInstruction = -1;
  #agentInstruction = -1;
  /** Messages taken in and items (re)computed since this index was made. */
  readonly stats = { messages: 0, computed: 0 };

  /** Takes in `history` from where the last update stopped; `cap` is the most one item may take before it is cut. */
  update(history: readonly Message[], cap: number): void {
    const changed = new Set<number>();
    for (let i = this.#consumed; i < history.length; i++) this.#take(history[i]!, i, changed);
    this.#consumed = history.length;
    for (const at of changed) this.#compute(at);
    if (cap !== this.#cap) {
      this.#cap = cap;
      for (let at = 0; at < this.#items.length; at++) this.#settle(at);
    } else {
      for (const at of changed) this.#settle(at);
    }
  }

  /** Number of leading system messages. */
  get lead(): number {
    return this.#lead;
  }

  /** The leading system messages' texts, trimmed, blank ones left out, joined by a blank line. */
  get leadText(): string {
    return this.#leadText;
  }

  /** Number of items. */
  get count(): number {
    return this.#items.length;
  }

  /** The last item that can be sent, or -1. */
  get lastValid(): number {
    return this.#lastValid;
  }

  /**
   * The item of the newest instruction, or -1: for the leader the latest plain person message
   * (not an inter-agent text, not a note the runtime wrote), for an agent its latest task;
   * else the latest user message of any kind, so a call always keeps what it answers to.
   */
  instruction(kind: "leader" | "agent"): number {
    const found = kind === "leader" ? this.#leaderInstruction : this.#agentInstruction;
    return found >= 0 ? found : this.#latestUser;
  }

  /** History indices of an item, in the order they are sent. */
  indices(at: number): readonly number[] {
    return this.#items[at]!.indices;
  }

  weight(at: number): Exclude<SceneWeight, "instruction"> {
    return this.#items[at]!.weight;
  }

  /** Eviction class ({@link NEGOTIATION} or {@link FLOW}). */
  classOf(at: number): number {
    return this.#items[at]!.weight === "negotiation" ? NEGOTIATION : FLOW;
  }

  isValid(at: number): boolean {
    return !this.#items[at]!.invalid;
  }

  /** Tokens of an item as it would be sent: whole when it is the instruction, else cut to the cap when larger. */
  tokens(at: number, asInstruction: boolean): number {
    const item = this.#items[at]!;
    return asInstruction || !item.cut ? item.tokens : item.cut.tokens;
  }

  /** An item's messages as they would be sent (shared: copy before handing them out). */
  variant(at: number, asInstruction: boolean): ItemVariant {
    const item = this.#items[at]!;
    if (asInstruction || !item.cut) return { sent: item.sent, sentTokens: item.sentTokens, truncated: null, previews: (item.previews ??= item.sent.map(previewOf)) };
    return { ...item.cut, previews: (item.cutPreviews ??= item.cut.sent.map(previewOf)) };
  }

  /** Messages held by items `from` (inclusive) to `to` (exclusive). */
  messagesIn(from: number, to: number): number {
    return this.#lengths.range(from, to);
  }

  /** Messages held by the items before `at`. */
  messagesBefore(at: number): number {
    return this.#lengths.prefix(at);
  }

  /** The first position `at` with {@link messagesBefore} at least `target`. */
  firstWithMessagesBefore(target: number): number {
    return this.#lengths.firstReaching(target);
  }

  /** The last sendable item of `cls` before `before` whose tokens (cut when larger than the cap) are at most `max`, or -1. */
  lastFitting(cls: number, before: number, max: number): number {
    return this.#keys[cls]!.lastAtMost(before, max);
  }

  #take(m: Message, index: number, changed: Set<number>): void {
    this.stats.messages++;
    if (index === this.#lead && m.role === "system") {
      this.#lead++;
      const text = (m.content ?? "").trim();
      if (text) this.#leadText = this.#leadText ? `${this.#leadText}\n\n${text}` : text;
      return;
    }
    if (m.role === "assistant" && m.tool_calls?.length) {
      const at = this.#add(index, [], [], "flow");
      const head = MESSAGE_OVERHEAD + countTokens(m.content) + (m.tool_call_id ? countTokens(m.tool_call_id) : 0);
      this.#items[at]!.call = { message: m, head, perCall: m.tool_calls.map(callTokens), answered: new Set(), results: [], resultTokens: [] };
      for (const id of new Set(m.tool_calls.map((c) => c.id))) {
        const queue = this.#pending.get(id);
        if (queue) queue.push(at);
        else this.#pending.set(id, [at]);
      }
      changed.add(at);
      return;
    }
    if (m.role === "tool") {
      const id = m.tool_call_id;
      const queue = id ? this.#pending.get(id) : undefined;
      const owner = queue?.shift();
      if (queue && !queue.length) this.#pending.delete(id!);
      if (owner !== undefined) {
        const item = this.#items[owner]!;
        const chat = toChat(m);
        item.indices.push(index);
        item.call!.answered.add(id!);
        item.call!.results.push(chat);
        item.call!.resultTokens.push(messageTokens(chat));
        changed.add(owner);
        return;
      }
      const chat = toChat(m);
      const at = this.#add(index, [chat], [messageTokens(chat)], "flow");
      this.#items[at]!.invalid = true;
      changed.add(at);
      return;
    }
    const chat = toChat(m);
    const at = this.#add(index, [chat], [messageTokens(chat)], m.role === "user" ? "negotiation" : m.role === "system" ? "system" : "flow");
    if (m.role === "user") {
      this.#latestUser = at;
      if (m.metadata?.message_source !== "system" && !isInterAgentText(m.content)) this.#leaderInstruction = at;
      if (parseAgentMessage(m.content ?? "")?.kind === "task") this.#agentInstruction = at;
    }
    changed.add(at);
  }

  #add(index: number, sent: ChatMessage[], sentTokens: number[], weight: Item["weight"]): number {
    const tokens = sentTokens.reduce((n, t) => n + t, 0);
    this.#items.push({ indices: [index], weight, invalid: false, sent, sentTokens, tokens, cut: null, previews: null, cutPreviews: null, call: null });
    this.#lengths.push(1);
    return this.#items.length - 1;
  }

  /** Rebuilds an assistant item from its message and the results it has now. */
  #compute(at: number): void {
    const item = this.#items[at]!;
    const state = item.call;
    if (!state) return;
    const call = toChat(state.message);
    const calls = (call.tool_calls ?? []).filter((c) => state.answered.has(c.id));
    if (calls.length) call.tool_calls = calls;
    else delete call.tool_calls;
    // a call without a result would be refused by the API; only answered calls are sent
    item.invalid = !calls.length && !call.content;
    if (!calls.length && call.content === null) call.content = "";
    let head = state.head;
    state.message.tool_calls!.forEach((c, k) => {
      if (state.answered.has(c.id)) head += state.perCall[k]!;
    });
    item.sent = [call, ...state.results];
    item.previews = null;
    item.sentTokens = [head, ...state.resultTokens];
    item.tokens = item.sentTokens.reduce((n, t) => n + t, 0);
  }

  /** Cuts an item to the cap when larger, and indexes it. */
  #settle(at: number): void {
    const item = this.#items[at]!;
    this.stats.computed++;
    item.cut = !item.invalid && item.tokens > this.#cap ? cutItem(item.sent, item.sentTokens, this.#cap) : null;
    item.cutPreviews = null;
    const cls = item.weight === "negotiation" ? NEGOTIATION : FLOW;
    this.#keys[cls]!.set(at, item.invalid ? Number.POSITIVE_INFINITY : (item.cut?.tokens ?? item.tokens));
    this.#lengths.set(at, item.indices.length);
    if (!item.invalid && at > this.#lastValid) this.#lastValid = at;
  }
}

/** What the report shows of a message sent: its text, or its calls when it has none. */
function previewOf(m: ChatMessage): string {
  return preview(m.content || describeCalls(m.tool_calls));
}


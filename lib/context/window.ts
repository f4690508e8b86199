/**
 * One history's context, kept between model calls: the scene's items (each message paired,
 * counted and cut once), the conclusions it promotes, its work notes and its goal. Each call
 * takes in only the messages appended since the last one, so a call costs what it adds plus
 * what fits in the budgets, not the length of the history. Pure (no I/O).
 *
 * A history is append-only: messages already seen are never replaced, reordered or changed
 * (the store keeps the message objects of an open conversation and appends to a new array).
 * Each call checks that cheaply — same length or longer, same objects at the last message seen
 * and at positions 0, 1, 3, 7, … — and starts over from the whole history when it is not so (a
 * file replaced wholesale, a history cut short). `contextWindowFor` finds a history's window by
 * its first message object, so the same conversation read from memory again gets the same window
 * and a history read anew from disk gets a new one.
 */
import type { ChatMessage } from "@/lib/models/types";
import type { Message } from "@/lib/contracts/on-disk";
import { buildGlobal, buildPrivate, joinedTokens, systemMessageTokens } from "./lines";
import { isGoalMessage, messagePromotions, messageWorkNotes } from "./markers";
import type { SliceReport } from "./report";
import { fillScene } from "./scene-fill";
import { SceneUnits } from "./scene-units";
import { TOKENIZER_NAME } from "./tokens";
import { resolveBudgets, type BuildModelInputOptions, type ModelInput } from "./types";

/** Largest share of the scene budget one non-instruction item may take before its texts are cut. */
const ITEM_SHARE = 0.5;

/** How much work a window has done (messages are counted once per list kept from them). */
export interface ContextWindowStats {
  /** Times the history did not continue the one seen before, so the window started over. */
  restarts: number;
  /** Messages taken in by the scene, by the promoted conclusions, by the work notes, by the goal. */
  scene: number;
  promotions: number;
  notes: number;
  goal: number;
  /** Scene items (re)computed: paired, counted, cut. */
  itemsComputed: number;
  /** Scene items looked at by the last fill, and by all fills. */
  lastFillVisits: number;
  fillVisits: number;
}

/** A list kept in order of last appearance: an item seen again moves to the end. */
class RecencyList {
  #items = new Map<string, true>();
  /** Messages taken in. */
  taken = 0;

  constructor(private readonly of: (m: Message) => string[]) {}

  /** Takes in `history` from where it stopped; returns the list, oldest first. */
  update(history: readonly Message[]): string[] {
    for (; this.taken < history.length; this.taken++) {
      for (const item of this.of(history[this.taken]!)) {
        this.#items.delete(item);
        this.#items.set(item, true);
      }
    }
    return [...this.#items.keys()];
  }
}

/** The incremental context of one history; see the module comment for what a history must be. */
export class ContextWindow {
  #seen = 0;
  #last: Message | undefined;
  /** Messages at positions 2^k - 1 (0, 1, 3, 7, …): spread checks that the history is the same one. */
  #checks: Message[] = [];
  #restarts = 0;
  #fillVisits = 0;
  #lastFillVisits = 0;
  #scene = new SceneUnits();
  #promotions = new RecencyList(messagePromotions);
  #notes = new RecencyList(messageWorkNotes);
  #goal: string | null = null;
  #goalTaken = 0;

  /**
   * What one model call sees and its report (see `buildModelInput`), from `options.messages` — the
   * same history as the last call, possibly longer.
   */
  build(options: BuildModelInputOptions): ModelInput {
    const budgets = resolveBudgets(options.budgets);
    const history = this.#sync(options.messages);
    this.#scene.update(history, Math.floor(budgets.scene * ITEM_SHARE));
    const scene = fillScene(options.kind, history, this.#scene, budgets.scene);
    this.#lastFillVisits = scene.visited;
    this.#fillVisits += scene.visited;

    // an agent's saved system message (base + role prompt) comes first; `system` adds to it
    const base = [this.#scene.leadText, options.system.trim()];
    const systemText = base.filter(Boolean).join("\n\n");
    const global = buildGlobal(options.facts, options.promoted ?? [], budgets.global, options.memory ?? []);
    const priv = buildPrivate(options.privateNotes ?? [], budgets.private);
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

  /** Every conclusion the history promotes, oldest first (see `collectPromotions`). */
  promotions(history: readonly Message[]): string[] {
    return this.#promotions.update(this.#sync(history));
  }

  /** The work notes of the history's tool calls, oldest first (see `deriveWorkNotes`). */
  workNotes(history: readonly Message[]): string[] {
    return this.#notes.update(this.#sync(history));
  }

  /** The first plain person message, trimmed, or null (see `conversationGoal`). */
  goal(history: readonly Message[]): string | null {
    this.#sync(history);
    for (; this.#goal === null && this.#goalTaken < history.length; this.#goalTaken++) {
      const m = history[this.#goalTaken]!;
      if (isGoalMessage(m)) this.#goal = m.content!.trim();
    }
    return this.#goal;
  }

  /** The work done so far. */
  get stats(): ContextWindowStats {
    return {
      restarts: this.#restarts,
      scene: this.#scene.stats.messages,
      promotions: this.#promotions.taken,
      notes: this.#notes.taken,
      goal: this.#goalTaken,
      itemsComputed: this.#scene.stats.computed,
      lastFillVisits: this.#lastFillVisits,
      fillVisits: this.#fillVisits,
    };
  }

  /** `history`, after starting over when it does not continue the history seen so far. */
  #sync(history: readonly Message[]): readonly Message[] {
    const n = history.length;
    const continues = n >= this.#seen && (this.#seen === 0 || history[this.#seen - 1] === this.#last) && this.#checks.every((m, k) => history[2 ** k - 1] === m);
    if (!continues) this.#restart();
    for (let k = this.#checks.length; 2 ** k - 1 < n; k++) this.#checks.push(history[2 ** k - 1]!);
    this.#seen = n;
    this.#last = history[n - 1];
    return history;
  }

  #restart(): void {
    this.#restarts++;
    this.#seen = 0;
    this.#checks = [];
    this.#scene = new SceneUnits();
    this.#promotions = new RecencyList(messagePromotions);
    this.#notes = new RecencyList(messageWorkNotes);
    this.#goal = null;
    this.#goalTaken = 0;
  }
}

// Keyed by the history's first message object: kept while the conversation's messages are held.
const windows = new WeakMap<Message, ContextWindow>();

/**
 * The window of the history `messages` (the same one for the same first message object), made on
 * first use. An empty history gets a window of its own.
 */
export function contextWindowFor(messages: readonly Message[]): ContextWindow {
  const first = messages[0];
  if (!first) return new ContextWindow();
  let window = windows.get(first);
  if (!window) {
    window = new ContextWindow();
    windows.set(first, window);
  }
  return window;
}

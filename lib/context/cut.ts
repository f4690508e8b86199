/**
 * Cutting one scene item (an assistant message with its tool results, or a single message) that
 * is larger than its share of the scene budget: its long texts are cut in proportion to their
 * size, with a note saying so, rather than the item vanishing. Pure: works on copies.
 */
import { parseJsonWithin } from "@/lib/input-limits";
import type { ChatMessage } from "@/lib/models/types";
import { cloneChat } from "./chat";
import { countTokens, messageTokens, truncateToTokens } from "./tokens";

/** Below this many tokens a text is not worth cutting further. */
const MIN_CUT_TOKENS = 24;

const cutNote = (kept: number, total: number) => `\n…[cut to fit the context budget: first ${kept} of ${total} tokens shown]`;

/** An item's messages after {@link cutItem}. */
export interface CutItem {
  /** Copies of the messages, some texts cut. */
  sent: ChatMessage[];
  /** Tokens of each copy. */
  sentTokens: number[];
  /** Per message: whether one of its texts was cut. */
  truncated: boolean[];
  /** Tokens of all the copies. */
  tokens: number;
}

/**
 * Cuts the long texts of an item (contents, and string values inside tool-call arguments) in
 * proportion to their size so the item fits in `cap` tokens, roughly. Tool-call arguments stay
 * valid JSON. `sentTokens` are the messages' counts now; `sent` is not changed.
 */
export function cutItem(sent: readonly ChatMessage[], sentTokens: readonly number[], cap: number): CutItem {
  const tokens = sentTokens.reduce((n, t) => n + t, 0);
  interface Part {
    msg: number;
    tokens: number;
    apply: (allowed: number) => boolean;
  }
  const copies = sent.map(cloneChat);
  const truncated = copies.map(() => false);
  const parts: Part[] = [];
  copies.forEach((m, k) => {
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
  const room = cap - (tokens - partTokens);
  if (room <= 0 || partTokens === 0) return { sent: copies, sentTokens: [...sentTokens], truncated, tokens };
  for (const p of parts) {
    const allowed = Math.max(MIN_CUT_TOKENS, Math.floor((p.tokens * room) / partTokens));
    if (p.tokens > allowed && p.apply(allowed)) truncated[p.msg] = true;
  }
  const counts = copies.map(messageTokens);
  return { sent: copies, sentTokens: counts, truncated, tokens: counts.reduce((n, t) => n + t, 0) };
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

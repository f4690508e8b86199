/**
 * Cutting one scene item (an assistant message with its tool results, or a single message) that
 * is larger than its share of the scene budget: its long texts are cut — short ones kept whole,
 * long ones sharing the rest — with a note saying so, rather than the item vanishing. JSON — tool-call arguments, and a
 * tool result that is JSON — is shrunk by its structure (lib/tools/shape) so it stays valid: a
 * model reading JSON cut in the middle takes it for broken or empty. A workspace tool's result
 * is shrunk the way the tool shapes it (lib/workspace/results): whole entries or matches with
 * their counts brought up to date, a file cut at a line boundary. Pure: works on copies.
 */
import type { ChatMessage } from "@/lib/models/types";
import { MIN_SHAPE_CHARS, parseJsonValue, shapeJson, type JsonValue } from "@/lib/tools/shape";
// The pure part of the workspace (no I/O): how its tools shape their results.
import { reshapeToolResult } from "@/lib/workspace/results";
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
 * Cuts the long texts of an item (contents and tool-call arguments) so the item fits in `cap`
 * tokens, roughly: short texts stay whole and the long ones share what is left equally. Tool-call arguments and a tool result that is JSON
 * stay valid JSON (shrunk by structure); other text is cut with a note. `sentTokens` are the
 * messages' counts now; `sent` is not changed.
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
  // Which tool each result answers (the item holds the call and its results).
  const toolOf = new Map<string, string>();
  for (const m of copies) for (const call of m.tool_calls ?? []) toolOf.set(call.id, call.function.name);
  copies.forEach((m, k) => {
    if (m.content) {
      const text = m.content;
      const tokens = countTokens(text);
      parts.push({
        msg: k,
        tokens,
        apply: (allowed) => {
          const json = m.role === "tool" ? parseJsonValue(text) : undefined;
          const tool = m.role === "tool" && m.tool_call_id ? toolOf.get(m.tool_call_id) : undefined;
          const shape = tool ? (value: JsonValue, chars: number) => reshapeToolResult(tool, value, chars) ?? shapeJson(value, chars) : shapeJson;
          const cut = json && "value" in json ? shrinkJson(json.value, text, tokens, allowed, shape) : truncateToTokens(text, allowed, cutNote);
          if (cut === null || cut === text) return false;
          m.content = cut;
          return true;
        },
      });
    }
    m.tool_calls?.forEach((call, c) => {
      const args = call.function.arguments;
      const tokens = countTokens(args);
      parts.push({
        msg: k,
        tokens,
        apply: (allowed) => {
          // model-written JSON: nesting is checked before parsing (see lib/input-limits)
          const json = parseJsonValue(args);
          const cut = json && "value" in json ? shrinkJson(json.value, args, tokens, allowed) : null;
          if (cut === null || cut === args) return false;
          m.tool_calls![c] = { ...call, function: { ...call.function, arguments: cut } };
          return true;
        },
      });
    });
  });
  const partTokens = parts.reduce((n, p) => n + p.tokens, 0);
  const room = cap - (tokens - partTokens);
  if (room <= 0 || partTokens === 0) return { sent: copies, sentTokens: [...sentTokens], truncated, tokens };
  // Max-min fair shares: the smallest texts stay whole while they fit their equal share, the
  // room they leave goes to the larger ones, which get equal shares of it. A short result beside
  // a huge one (a README read with a long listing) reaches the model whole.
  const allowance = new Map<Part, number>();
  let left = room;
  [...parts]
    .sort((a, b) => a.tokens - b.tokens)
    .forEach((p, i, sorted) => {
      const share = Math.floor(left / (sorted.length - i));
      const give = Math.min(p.tokens, Math.max(MIN_CUT_TOKENS, share));
      allowance.set(p, give);
      left = Math.max(0, left - give);
    });
  for (const p of parts) {
    const allowed = allowance.get(p)!;
    if (p.tokens > allowed && p.apply(allowed)) truncated[p.msg] = true;
  }
  const counts = copies.map(messageTokens);
  return { sent: copies, sentTokens: counts, truncated, tokens: counts.reduce((n, t) => n + t, 0) };
}

/** Attempts at fitting JSON to a token count: characters per token differ inside one text, so a first guess can miss. */
const SHRINK_ATTEMPTS = 4;

/**
 * `value` (parsed from `text` of `tokens` tokens) as JSON of about `allowed` tokens, shrunk by
 * structure: the character budget is guessed from the text's characters per token, then lowered
 * by what the count overshot. Null when it already fits.
 */
function shrinkJson(value: JsonValue, text: string, tokens: number, allowed: number, shape: (value: JsonValue, maxChars: number) => string = shapeJson): string | null {
  if (tokens <= allowed) return null;
  let chars = Math.floor((text.length * allowed) / tokens);
  let out = "";
  for (let attempt = 0; attempt < SHRINK_ATTEMPTS; attempt++) {
    const budget = Math.max(MIN_SHAPE_CHARS, Math.min(chars, text.length - 1));
    out = shape(value, budget);
    const used = countTokens(out);
    if (used <= allowed || budget === MIN_SHAPE_CHARS) break;
    chars = Math.floor((budget * allowed) / used) - 1;
  }
  return out;
}

/**
 * What a person states should be kept (seed 003 §5.2: conclusions, preferences and decisions),
 * read from the person's own messages, the goal included:
 *
 * - a sentence led in as something to keep — `Findings to keep: …`, `Remember that …`,
 *   `Keep in mind: …`, `Note for later: …`, `Conclusion: …`, `Our decision is …`, and in Chinese
 *   `结论：…`, `记住…`, `请记住：…`, `要记住的是…`, `要保留的发现：…` — gives what follows the
 *   lead-in, one conclusion per `;`-separated part;
 * - a lead-in alone on its line (`Findings to keep:`) gives each list item under it;
 * - a decision — `We decided …`, `We agreed …`, `I've decided …`, `我们决定…`, `我们约定…`,
 *   `已确定…` — is kept whole: the sentence is the decision.
 *
 * Preferences (`I prefer …`) are read by `readsPreference` in ./text. Pure.
 */
import { listItem, sentences } from "./text";

/** English lead-ins of something to keep; what follows is the conclusion. */
const LEAD_IN_EN = [
    String.raw`(?:(?:the|some|my|our|a\s+few)\s+)?(?:findings?|conclusions?|facts?|things?|points?|notes?|decisions?|lessons?|takeaways?)\s+(?:to\s+(?:keep|remember|note)|worth\s+(?:keeping|remembering)|for\s+later)(?:\s+(?:is|are))?`,
    String.raw`(?:please\s+)?(?:remember|keep\s+in\s+mind|note\s+for\s+later|don't\s+forget|do\s+not\s+forget|for\s+the\s+record)(?:\s+that)?`,
    String.raw`(?:my|our|the)\s+(?:conclusions?|decisions?|findings?)\s+(?:is|are|was|were)(?:\s+that)?`,
    String.raw`(?:conclusions?|decisions?|key\s+(?:findings?|takeaways?)|takeaways?)(?=\s*[:：])`,
].join("|");
const LEAD_IN = new RegExp(String.raw`^(?:\*\*|__)?\s*(?:${LEAD_IN_EN})\s*(?:\*\*|__)?\s*[:：,，—–-]?\s*(?:\*\*|__)?\s*`, "i");

/** Chinese lead-ins of something to keep. */
const LEAD_IN_ZH = /^(?:\*\*|__)?\s*(?:(?:请|要|需要)?(?:记住|牢记|记下|别忘了|不要忘记)(?:的是|这一点)?|(?:要|需要)(?:保留|记住)的(?:发现|结论|是)|(?:要保留的|需要保留的|值得记住的)?(?:结论|决定|发现|要点))\s*(?:\*\*|__)?\s*[:：，,]?\s*/;

/** A decision stated as such: kept whole. */
const DECISION = /^(?:(?:we|I)(?:'ve|\s+(?:have|had))?(?:\s+(?:already|finally|all|just))*\s+(?:decided|agreed|concluded|settled\s+on|chose|determined)\b|it\s+(?:was|has\s+been)\s+decided\b)|^(?:我们?|大家)(?:已经?|最终|一致)?(?:决定|约定|商定|确定|同意)|^已(?:经)?(?:决定|确定)/i;

/** What a lead-in leaves, split at `;`: the conclusions of one sentence. */
function parts(rest: string): string[] {
  return rest
    .split(/\s*[;；]\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The conclusion a sentence states, without its lead-in: null when it states none, `[]` for a
 * lead-in alone (`Findings to keep:`, whose list follows).
 */
function statedIn(sentence: string): string[] | null {
  const s = sentence.trim();
  if (DECISION.test(s)) return [s];
  const lead = LEAD_IN.exec(s) ?? LEAD_IN_ZH.exec(s);
  if (!lead || lead[0].length === 0) return null;
  // A Chinese lead-in must end in its separator or be a verb of remembering, so that `发现问题…` is no lead-in.
  if (!LEAD_IN.exec(s) && !/[:：，,]\s*$/.test(lead[0]) && !/记住|牢记|记下|忘/.test(lead[0])) return null;
  const rest = s.slice(lead[0].length);
  // `Remember to run the linter` is a wish, whole: without its verb it says nothing.
  return /^to\s/i.test(rest) ? [s] : parts(rest);
}

/** The conclusions and decisions a person stated in `text` (see the module comment), in order. */
export function statedConclusions(text: string): string[] {
  const out: string[] = [];
  let listFollows = false;
  for (const line of text.split("\n")) {
    const item = listItem(line);
    if (item !== null && listFollows) {
      out.push(...parts(item));
      continue;
    }
    if (!line.trim()) continue;
    listFollows = false;
    for (const s of sentences(item ?? line)) {
      const found = statedIn(s);
      if (found === null) continue;
      if (found.length === 0) listFollows = true;
      else out.push(...found);
    }
  }
  return out;
}

/**
 * Words that carry no content for memory's comparisons and search: English function words and
 * Chinese particles. Negations are not among them (they change what a statement says). Pure.
 */
export const EN_STOP: ReadonlySet<string> = new Set(
  "a an the is are was were be been being of to in on at for by with and or as it its this that these those there has have had do does did will would should can could may might must we you they he she i our your their what which who whom how when where why".split(" "),
);
export const ZH_STOP: ReadonlySet<string> = new Set([..."的了是在和与及也都就这那个我们你他她它把被对从而并且或吗呢吧啊"]);

/** True when `word` (folded) is a stop word. */
export function isStopWord(word: string): boolean {
  return EN_STOP.has(word) || ZH_STOP.has(word);
}

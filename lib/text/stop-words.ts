/**
 * Stop words: the words that carry no content for search and ranking, in English and Chinese.
 * Each would otherwise make a query score most of what is searched. Pure.
 *
 * - {@link ENGLISH_STOP_WORDS} and {@link CHINESE_STOP_CHARS}: function words and particles.
 *   Negations are not among them: "is not deprecated" says the opposite of "is deprecated", and
 *   memory's dedup keeps them apart ({@link isStopWord}).
 * - {@link RANK_STOP_WORDS}: for ranking by relevance to a request, those function words plus
 *   negations and the filler of requests ("please help me use …"), so a request made only of such
 *   words ranks nothing.
 *
 * Chinese particles are dropped where Chinese is cut into single characters (memory); ranking cuts
 * it into pairs of characters, where a particle is part of words too (在线, 目的), so it keeps them.
 */

/** English function words, folded (lib/text/words.ts `fold`); contractions' pieces (`it's` → `it`, `s`) included. */
const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or as if then than so of to in on at for by with from into onto about " +
    "is are was were be been being has have had do does did will would should can could may might must " +
    "it its this that these those there here i me my mine we our ours you your yours he his she her hers they them their theirs " +
    "what which who whom whose how when where why s t ll re ve d m"
  ).split(" "),
);

/** Chinese particles and pronouns: grammar rather than content (the, of, is, and, this, we …). */
export const CHINESE_STOP_CHARS: ReadonlySet<string> = new Set([..."的了是在和与及也都就这那个我们你他她它把被对从而并且或吗呢吧啊"]);

/** True when `word` (folded) is an English function word or a Chinese particle. */
export function isStopWord(word: string): boolean {
  return ENGLISH_STOP_WORDS.has(word) || CHINESE_STOP_CHARS.has(word);
}

/** Words that carry no meaning for ranking by relevance to a request: function words, negations, the filler of requests. */
export const RANK_STOP_WORDS: ReadonlySet<string> = new Set([
  ...ENGLISH_STOP_WORDS,
  ..."not no also just please help want need like let lets make get use using used per each every all any both either up out over under again only very too some one two etc via within without".split(" "),
]);

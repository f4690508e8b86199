/**
 * Light English stemming for matching and ranking: a word's plural and -ing/-ed forms meet its
 * base ("tests" and "testing" reach "test", "libraries" reaches "library"). Suffix rules, no
 * dictionary: crude, but the same on both sides of every comparison. Pure.
 */

/** A word and its light stems ("tests" → "test", "reviewing" → "review", "libraries" → "library"), for matching against a vocabulary. */
export function stems(word: string): string[] {
  const out = [word];
  if (word.length > 4 && word.endsWith("ies")) out.push(`${word.slice(0, -3)}y`);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) out.push(word.slice(0, -1));
  if (word.length > 5 && word.endsWith("ing")) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  if (word.length > 4 && word.endsWith("ed")) out.push(word.slice(0, -2), word.slice(0, -1));
  return out;
}

/**
 * One canonical stem per word, for BM25, where a word must count once ("queries" and "query"
 * both become "query"; "testing", "tests" and "test" all become "test").
 */
export function canonicalStem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed") && !word.endsWith("eed")) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")) return word.slice(0, -1);
  return word;
}

/**
 * Caps on text handed to a model. Pure: no I/O.
 *
 * Why a visible marker: a model that receives silently cut output believes it saw everything
 * and reasons from a false premise; the marker tells it (and a person reading the log) that
 * more exists and roughly how much.
 */

/** The marker appended by {@link capToolOutput}. */
export function truncationMarker(omitted: number): string {
  return `\n…[truncated: ${omitted} more characters]`;
}

/**
 * `text` itself when it has at most `maxChars` characters (UTF-16 code units); otherwise its
 * first `maxChars` characters followed by `\n…[truncated: N more characters]`. A surrogate pair
 * is never split, so the result is always valid Unicode.
 * @throws RangeError when `maxChars` is not a non-negative integer.
 */
export function capToolOutput(text: string, maxChars: number): string {
  if (!Number.isInteger(maxChars) || maxChars < 0) throw new RangeError(`maxChars must be a non-negative integer: ${maxChars}`);
  if (text.length <= maxChars) return text;
  let cut = maxChars;
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + truncationMarker(text.length - cut);
}

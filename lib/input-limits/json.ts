/**
 * JSON from outside (request bodies, a model's tool arguments) parsed with bounded work. The
 * size is checked before anything else, and the nesting depth by a linear scan before
 * `JSON.parse`: half a megabyte of `[` makes `JSON.parse` alone block the event loop for a
 * quarter of a second, and every walk over the value afterwards (schemas, serializers) recurses.
 * Pure: importable anywhere.
 */

/** Deepest nesting of arrays and objects accepted in any JSON this app reads from outside. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting of `[`/`{` in `text`, scanning only until it exceeds `limit` (strings and
 * their escapes are skipped). Linear in the text, no allocation.
 */
export function jsonDepthOver(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** The result of {@link parseJsonWithin}. */
export type BoundedJsonResult = { ok: true; value: unknown } | { ok: false; reason: "too_large" | "too_deep" | "invalid"; message: string };

/**
 * Parses JSON text of at most `maxChars` characters and {@link MAX_JSON_DEPTH} levels of
 * nesting; never throws.
 */
export function parseJsonWithin(text: string, maxChars: number, maxDepth = MAX_JSON_DEPTH): BoundedJsonResult {
  if (text.length > maxChars) return { ok: false, reason: "too_large", message: `it is ${text.length} characters; at most ${maxChars} are accepted` };
  if (jsonDepthOver(text, maxDepth)) return { ok: false, reason: "too_deep", message: `it nests arrays or objects more than ${maxDepth} levels deep` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: "invalid", message: `it is not valid JSON: ${(error as Error).message}` };
  }
}

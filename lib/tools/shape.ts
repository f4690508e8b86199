/**
 * Shaping a tool result to a size without corrupting it. A model that receives JSON cut in the
 * middle reads it as broken or empty ("no matches") and reasons from a false premise; so JSON is
 * shrunk by its structure — long strings cut with `…[cut N chars]`, long arrays cut to whole
 * items plus a count of what was left out, objects keeping every key they can — and stays valid
 * JSON. Text that is not JSON is cut with a visible marker. The one home of this logic: the
 * runtime's cap on tool output, the workspace tools' results and the context window's cuts all
 * use it. Pure: no I/O.
 *
 * Bounded work: the size of a large node is computed once (a small one, under 256 characters, a
 * bounded number of times), every node is written once, and a string is scanned at most once
 * more to find where to cut it — linear in the input (plus sorting the keys of each object that
 * has to be shrunk), never a loop of re-serialising.
 */
import { MAX_JSON_DEPTH, parseJsonWithin } from "@/lib/input-limits";

/** A JSON value as `JSON.parse` returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * From this cap up, every cut carries its marker (`…[cut N chars]`, the counts of items and
 * keys): the smallest form of any value fits. Below it the result still fits the cap, with less.
 */
export const MIN_SHAPE_CHARS = 64;

/** Counts the work of a call, in characters measured, scanned or written (tests check it stays linear). */
export interface ShapeMeter {
  work: number;
}

/** The marker {@link capToolOutput} appends to text that is not JSON. */
function truncationMarker(omitted: number): string {
  return `\n…[truncated: ${omitted} more characters]`;
}

/** What replaces the end of a string cut by {@link shapeJson}. */
function cutStringMarker(cut: number): string {
  return `…[cut ${cut} chars]`;
}

/** The last element of an array cut by {@link shapeJson}. */
function omittedItemsMarker(n: number): string {
  return `…[${n} more item${n === 1 ? "" : "s"} not shown]`;
}

/** The key, and its value, added to an object whose members did not all fit. */
export const OMITTED_KEYS_KEY = "…";
/** The value under {@link OMITTED_KEYS_KEY}. */
function omittedKeysMarker(n: number): string {
  return `${n} more key${n === 1 ? "" : "s"} not shown`;
}

function checkCap(maxChars: number): void {
  if (!Number.isInteger(maxChars) || maxChars < 0) throw new RangeError(`maxChars must be a non-negative integer: ${maxChars}`);
}

/**
 * How many characters `JSON.stringify` writes for the code unit at `i` of `s` (with the next one
 * when they form a surrogate pair), and how many code units that covers.
 */
function escapedWidth(s: string, i: number): [width: number, units: number] {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return [2, 1];
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? [2, 1] : [6, 1];
  if (c >= 0xd800 && c <= 0xdfff) {
    // A whole pair is written as it is; a lone surrogate as \uXXXX (well-formed JSON.stringify).
    if (c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) return [2, 2];
    return [6, 1];
  }
  return [1, 1];
}

/**
 * The length of the longest prefix of `s` whose JSON-escaped form (without the quotes) takes at
 * most `room` characters; never ends inside a surrogate pair. Scans at most `room` code units.
 */
export function jsonPrefixLength(s: string, room: number, meter?: ShapeMeter, from = 0): number {
  let i = from;
  let used = 0;
  while (i < s.length) {
    const [width, units] = escapedWidth(s, i);
    if (used + width > room) break;
    used += width;
    i += units;
  }
  if (meter) meter.work += i - from;
  return i;
}

/** `JSON.stringify(value).length` for a value with no `undefined` in it. */
function jsonLength(value: unknown): number {
  return JSON.stringify(value).length;
}

/** Strings, arrays and objects this large have their size kept; smaller ones cost less to measure again than to look up. */
const LONG_NODE = 256;

/** A character JSON.stringify escapes: a quote, a backslash, a control character, a surrogate (it may be lone). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Shapes one value: measures its nodes (keeping the sizes of large ones) and writes the result. */
class Shaper {
  readonly #sizes = new Map<object, number>();
  readonly #keyCounts = new Map<object, number>();
  // Large nodes are measured once: a node's size is asked again when it is written.
  readonly #stringSizes = new Map<string, number>();
  readonly #out: string[] = [];
  constructor(private readonly meter: ShapeMeter | undefined) {}

  size(v: JsonValue): number {
    if (typeof v === "string") return this.#stringSize(v);
    if (typeof v === "number") return String(v).length; // what JSON.stringify writes for a finite number
    if (v === null || typeof v === "boolean") return v === false ? 5 : 4;
    const known = this.#sizes.get(v);
    if (known !== undefined) return known;
    let n: number;
    let keyCount = -1;
    if (Array.isArray(v)) {
      n = 2 + Math.max(0, v.length - 1);
      for (const item of v) n += this.size(item);
    } else {
      // Object.keys, not entries: no pair arrays for the collector (it matters at 100,000 keys).
      const keys = Object.keys(v);
      keyCount = keys.length;
      n = 2 + Math.max(0, keys.length - 1);
      for (const k of keys) n += this.#stringSize(k) + 1 + this.size(v[k]!);
    }
    // Small nodes are cheaper to measure again (a bounded number of times) than to remember.
    if (n >= LONG_NODE) {
      this.#sizes.set(v, n);
      if (keyCount >= 0) this.#keyCounts.set(v, keyCount);
    }
    return n;
  }

  /** The smallest this node can be made: a marker standing for all of it, or itself when smaller. */
  minSize(v: JsonValue): number {
    const full = this.size(v);
    if (typeof v === "string") return Math.min(full, 2 + cutStringMarker(v.length).length);
    if (Array.isArray(v)) return Math.min(full, 2 + jsonLength(omittedItemsMarker(v.length)));
    if (v !== null && typeof v === "object") return Math.min(full, 2 + omittedKeysMember(this.#keyCounts.get(v) ?? Object.keys(v).length));
    return full;
  }

  #stringSize(s: string): number {
    const known = s.length < LONG_NODE ? undefined : this.#stringSizes.get(s);
    if (known !== undefined) return known;
    if (this.meter) this.meter.work += s.length;
    // Most strings need no escape: then the size is their length and the quotes.
    const n = NEEDS_ESCAPE.test(s) ? jsonLength(s) : s.length + 2;
    if (s.length >= LONG_NODE) this.#stringSizes.set(s, n);
    return n;
  }

  #write(text: string): void {
    if (this.meter) this.meter.work += text.length;
    this.#out.push(text);
  }

  result(): string {
    return this.#out.join("");
  }

  /** Writes `v` in at most `budget` characters; `budget` is at least {@link minSize}. */
  emit(v: JsonValue, budget: number): void {
    if (this.size(v) <= budget) return this.#write(JSON.stringify(v));
    if (typeof v === "string") return this.#write(JSON.stringify(this.#cutString(v, budget)));
    if (Array.isArray(v)) return this.#emitArray(v, budget);
    if (v !== null && typeof v === "object") return this.#emitObject(v, budget);
    // A number, boolean or null is never larger than its minimum, which the budget covers.
    this.#write(JSON.stringify(v));
  }

  #cutString(s: string, budget: number): string {
    const marker = (keep: number) => cutStringMarker(s.length - keep).length;
    let keep = jsonPrefixLength(s, budget - 2 - marker(0), this.meter);
    // The count has fewer digits than the length it was budgeted with: use the characters saved.
    const saved = marker(0) - marker(keep);
    if (saved > 0) keep = jsonPrefixLength(s, saved, this.meter, keep);
    return s.slice(0, keep) + cutStringMarker(s.length - keep);
  }

  /** Whole items from the start while they fit, then a marker counting the rest. */
  #emitArray(v: JsonValue[], budget: number): void {
    const reserve = 1 + jsonLength(omittedItemsMarker(v.length));
    let used = 2;
    let kept = 0;
    while (kept < v.length) {
      const cost = this.size(v[kept]!) + (kept > 0 ? 1 : 0);
      if (used + cost + reserve > budget) break;
      used += cost;
      kept++;
    }
    // When not even the first item fits whole, a shrunk first item beats showing none.
    let partial = -1;
    if (kept === 0) {
      const room = budget - 2 - (v.length > 1 ? reserve : 0);
      if (room >= this.minSize(v[0]!)) partial = room;
    }
    this.#write("[");
    for (let i = 0; i < kept; i++) {
      if (i > 0) this.#write(",");
      this.emit(v[i]!, Number.POSITIVE_INFINITY);
    }
    if (partial >= 0) this.emit(v[0]!, partial);
    const shown = kept + (partial >= 0 ? 1 : 0);
    if (shown < v.length) this.#write(`${shown > 0 ? "," : ""}${JSON.stringify(omittedItemsMarker(v.length - shown))}`);
    this.#write("]");
  }

  /**
   * Every member at its minimum when they all fit (else those that fit, in order, and a count of
   * the rest); the room left is shared so that small members stay whole and large ones get equal
   * shares (max-min fairness). Members past the point where nothing more can fit are not looked at.
   */
  #emitObject(v: { [key: string]: JsonValue }, budget: number): void {
    const keys = Object.keys(v);
    const member = (key: string) => {
      const head = this.#stringSize(key) + 1;
      const value = v[key]!;
      return { key, value, head, min: head + this.minSize(value), full: head + this.size(value) };
    };
    type Member = ReturnType<typeof member>;
    let chosen: Member[] = [];
    let fixed = 2 + Math.max(0, keys.length - 1);
    for (const key of keys) {
      const m = member(key);
      chosen.push(m);
      fixed += m.min;
      if (fixed > budget) break;
    }
    if (fixed > budget) {
      // Not every member fits even at its minimum: those that do, in order, and a count.
      const reserve = 1 + omittedKeysMember(keys.length);
      const all = chosen;
      chosen = [];
      fixed = 2;
      // The smallest member is `"":0` (and a comma): past that point nothing more can fit.
      for (let i = 0; i < keys.length && fixed + (chosen.length > 0 ? 5 : 4) + reserve <= budget; i++) {
        const key = keys[i]!;
        // Measured before a member is made: most of a wide object's keys are only counted.
        const cost = (all[i]?.min ?? this.#stringSize(key) + 1 + this.minSize(v[key]!)) + (chosen.length > 0 ? 1 : 0);
        if (fixed + cost + reserve > budget) continue;
        chosen.push(all[i] ?? member(key));
        fixed += cost;
      }
      fixed += (chosen.length > 0 ? 1 : 0) + omittedKeysMember(keys.length - chosen.length);
    }
    let room = budget - fixed;
    const grant = new Map<Member, number>();
    const byNeed = [...chosen].sort((a, b) => a.full - a.min - (b.full - b.min));
    byNeed.forEach((m, i) => {
      const give = Math.min(m.full - m.min, Math.floor(room / (byNeed.length - i)));
      grant.set(m, m.min + give);
      room -= give;
    });
    this.#write("{");
    chosen.forEach((m, i) => {
      this.#write(`${i > 0 ? "," : ""}${JSON.stringify(m.key)}:`);
      this.emit(m.value, grant.get(m)! - m.head);
    });
    const left = keys.length - chosen.length;
    if (left > 0) this.#write(`${chosen.length > 0 ? "," : ""}${JSON.stringify(OMITTED_KEYS_KEY)}:${JSON.stringify(omittedKeysMarker(left))}`);
    this.#write("}");
  }
}

/** Characters of the `"…":"N more keys not shown"` member. */
function omittedKeysMember(n: number): number {
  return jsonLength(OMITTED_KEYS_KEY) + 1 + jsonLength(omittedKeysMarker(n));
}

/** Options of {@link shapeJson} and {@link capToolOutput}. */
export interface ShapeOptions {
  /** Counts the work done. */
  meter?: ShapeMeter;
}

/**
 * `value` as compact JSON in at most `maxChars` characters (UTF-16 code units), valid JSON
 * whenever `maxChars` ≥ 2 (below that, ""): the whole value when it fits; otherwise, from the top down, strings are cut to a prefix ending
 * in `…[cut N chars]` (never inside a surrogate pair), arrays keep whole items from the start
 * (only the first item is shrunk when not even it fits) followed by `"…[N more items not
 * shown]"`, and objects keep their keys in order — the room shared so small values stay whole —
 * dropping those that cannot fit under a `"…": "N more keys not shown"` member. Below
 * {@link MIN_SHAPE_CHARS} a value whose smallest marked form does not fit becomes the same kind of
 * JSON nearly empty (`["…"]`, `{"…":"…"}`, a string's beginning and `…`). The result's length is
 * ≤ `maxChars`, always. Work is linear in the size of `value` (plus sorting the keys of each
 * shrunk object). `value` must be a {@link JsonValue} at most {@link MAX_JSON_DEPTH} levels deep.
 * @throws RangeError when `maxChars` is not a non-negative integer.
 */
export function shapeJson(value: JsonValue, maxChars: number, options: ShapeOptions = {}): string {
  checkCap(maxChars);
  const shaper = new Shaper(options.meter);
  // Every root's minimum is a short marker (≤ about 45 characters), within MIN_SHAPE_CHARS.
  if (shaper.minSize(value) > maxChars) return tinyJson(value, maxChars);
  shaper.emit(value, maxChars);
  const out = shaper.result();
  // A defence that should never run: the sizes above are exact.
  return out.length <= maxChars ? out : JSON.stringify(cutStringMarker(out.length));
}

/** `value` in a cap too small for its markers: the same kind of JSON, nearly empty; "" below 2 characters. */
function tinyJson(value: JsonValue, maxChars: number): string {
  if (maxChars < 2) return "";
  if (Array.isArray(value)) return maxChars >= 5 ? '["…"]' : "[]";
  if (value !== null && typeof value === "object") return maxChars >= 11 ? '{"…":"…"}' : "{}";
  if (typeof value !== "string" || maxChars < 3) return maxChars >= 3 ? '"…"' : '""';
  return JSON.stringify(`${value.slice(0, jsonPrefixLength(value, maxChars - 3))}…`);
}

/**
 * `text` read as JSON when it is an object, an array or a string (the shapes worth shaping):
 * `value` when it parses within {@link MAX_JSON_DEPTH} levels, `tooDeep` when it nests deeper
 * (not parsed: that alone could block for a while), undefined when it is not such JSON.
 */
export function parseJsonValue(text: string): { value: JsonValue } | { tooDeep: true } | undefined {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[" && first !== '"') return undefined;
  const parsed = parseJsonWithin(text, Number.POSITIVE_INFINITY, MAX_JSON_DEPTH);
  if (parsed.ok) return { value: parsed.value as JsonValue };
  return parsed.reason === "too_deep" ? { tooDeep: true } : undefined;
}

/**
 * `text` cut to at most `maxChars` characters with {@link truncationMarker} at its end (counted
 * in the cap), or only `…` when the cap is smaller than the marker; never splits a surrogate pair.
 */
export function cutText(text: string, maxChars: number): string {
  checkCap(maxChars);
  if (text.length <= maxChars) return text;
  if (maxChars < truncationMarker(text.length).length) {
    if (maxChars === 0) return "";
    const head = text.slice(0, maxChars - 1);
    return `${/[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head}…`;
  }
  let keep = maxChars - truncationMarker(text.length).length;
  // The count has fewer digits than the length it was budgeted with: use the characters saved.
  keep += truncationMarker(text.length).length - truncationMarker(text.length - keep).length;
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return text.slice(0, keep) + truncationMarker(text.length - keep);
}

/**
 * A tool result as sent to a model: `text` itself when it has at most `maxChars` characters
 * (UTF-16 code units). Otherwise, when `text` is JSON (an object, array or string, nested at
 * most {@link MAX_JSON_DEPTH} levels), {@link shapeJson} of it — valid JSON, shrunk by structure;
 * text nested deeper (not parsed) becomes a JSON string holding its cut text; anything else is cut as text by
 * {@link cutText}. The result always has at most `maxChars` characters, and a JSON input gives
 * valid JSON whenever `maxChars` ≥ 2 (with every cut's marker from {@link MIN_SHAPE_CHARS} up).
 * @throws RangeError when `maxChars` is not a non-negative integer.
 */
export function capToolOutput(text: string, maxChars: number, options: ShapeOptions = {}): string {
  checkCap(maxChars);
  if (text.length <= maxChars) return text;
  const json = parseJsonValue(text);
  if (json === undefined) return cutText(text, maxChars);
  // Nesting too deep to walk safely: still sent as JSON, a string holding the text's beginning.
  return shapeJson("value" in json ? json.value : text, maxChars, options);
}

/**
 * The longest prefix of `items` that fits: `build(kept, omitted)` is the result for the first
 * `kept.length` items with `omitted` left out, and its JSON must take at most `maxChars`
 * characters. Each item is serialised once. `build` must not grow when `omitted` shrinks (a
 * smaller count has no more digits). `fits` is false when not even `build([], items.length)` fits.
 */
export function keepWholeItems<T, R>(items: readonly T[], maxChars: number, build: (kept: T[], omitted: number) => R): { value: R; kept: number; fits: boolean } {
  const whole = build([...items], 0);
  if (jsonLength(whole) <= maxChars) return { value: whole, kept: items.length, fits: true };
  let used = jsonLength(build([], items.length));
  if (used > maxChars) return { value: build([], items.length), kept: 0, fits: false };
  let kept = 0;
  for (const item of items) {
    const cost = jsonLength(item) + (kept > 0 ? 1 : 0);
    if (used + cost > maxChars) break;
    used += cost;
    kept++;
  }
  let value = build(items.slice(0, kept), items.length - kept);
  // The envelope was measured with the largest count; a smaller one has fewer digits, and the
  // characters saved may hold another item or two (a few at most, so a few serialisations).
  for (let tries = 0; tries < 8 && kept < items.length; tries++) {
    const more = build(items.slice(0, kept + 1), items.length - kept - 1);
    if (jsonLength(more) > maxChars) break;
    value = more;
    kept++;
  }
  return { value, kept, fits: true };
}

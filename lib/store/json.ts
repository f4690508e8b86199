/**
 * JSON text exactly as Python's `json.dumps(data, ensure_ascii=False, indent=2)` writes it, which
 * is what the seed's `_atomic_write_json` produces: 2-space indent, `", "`-free item separators
 * with newlines, `": "` after keys, `[]` and `{}` for empty containers, non-ASCII characters as
 * themselves, and no trailing newline. Pure: no I/O.
 *
 * Two writers produce the same bytes: {@link toPythonJsonReference}, a plain recursive writer that
 * states the rules, and {@link toPythonJson} (and {@link toPythonJsonBytes}, its UTF-8 bytes, which
 * every save writes). The fast one lets V8's native
 * `JSON.stringify(value, null, 2)` do the work, because for plain JSON data its layout and string
 * escaping are already Python's; it only differs on numbers Python writes differently. Those are
 * found in one walk over the value (no string building) and swapped for a placeholder before
 * stringifying, then for the reference's own text after. Anything outside plain JSON data
 * (functions, NaN, class instances, `toJSON`, holes or `undefined` in arrays) goes to the
 * reference writer, so the two can never disagree.
 */

/**
 * Keys whose numeric values are Python floats in the seed (epoch seconds such as
 * `pending_messages[].created_at`): a whole number there is written `1752251700.0`, as Python does.
 */
const FLOAT_KEYS: ReadonlySet<string> = new Set(["created_at", "timestamp", "started_at", "finished_at"]);

/**
 * Python's `repr(float)`: the shortest digits that round-trip (the same digits JavaScript picks),
 * written in fixed notation when the decimal exponent is in [-4, 16) and in scientific notation
 * (`1e+16`, `1.5e-05`, at least two exponent digits) otherwise; fixed notation always has a
 * fractional part (`1752251700.0`).
 */
function pythonFloat(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`cannot write ${n} as JSON`);
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const sign = n < 0 ? "-" : "";
  // toExponential() without an argument gives the shortest round-tripping digits.
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(n).toExponential());
  if (!m) throw new TypeError(`cannot write ${n} as JSON`);
  const digits = (m[1] ?? "") + (m[2] ?? "");
  const exp = Number(m[3]);
  if (exp < -4 || exp >= 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exp < 0 ? "-" : "+";
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fracPart = digits.slice(exp + 1) || "0";
  return `${sign}${intPart}.${fracPart}`;
}

/**
 * A number outside {@link FLOAT_KEYS}: a safe integer is a Python `int` (all digits); anything
 * else (a fraction, or a whole number too large to be an exact integer) is a Python `float`.
 */
function pythonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`cannot write ${n} as JSON`);
  if (Number.isSafeInteger(n)) return String(n === 0 ? 0 : n);
  return pythonFloat(n);
}

function write(value: unknown, indent: string, key: string | null, out: string[]): void {
  if (value === null || value === undefined) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "string":
      // JSON.stringify escapes exactly what Python escapes with ensure_ascii=False:
      // quote, backslash, and control characters below U+0020 (lower-case \u00xx).
      out.push(JSON.stringify(value));
      return;
    case "number":
      out.push(key !== null && FLOAT_KEYS.has(key) ? pythonFloat(value) : pythonNumber(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object":
      break;
    default:
      throw new TypeError(`cannot write a ${typeof value} as JSON`);
  }
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
      return;
    }
    out.push("[");
    value.forEach((item, i) => {
      out.push("\n", inner);
      // Items of a list under a float key (e.g. a list of epoch times) are floats too.
      write(item, inner, key, out);
      if (i < value.length - 1) out.push(",");
    });
    out.push("\n", indent, "]");
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) {
    out.push("{}");
    return;
  }
  out.push("{");
  entries.forEach(([k, v], i) => {
    out.push("\n", inner, JSON.stringify(k), ": ");
    write(v, inner, k, out);
    if (i < entries.length - 1) out.push(",");
  });
  out.push("\n", indent, "}");
}

/**
 * The reference writer: one recursive pass that states every rule of Python's output. Slower
 * than {@link toPythonJson}, which must match it byte for byte (the tests compare the two on
 * random and real-world values) and falls back to it for values outside plain JSON data.
 */
export function toPythonJsonReference(value: unknown): string {
  const out: string[] = [];
  write(value, "", null, out);
  return out.join("");
}

// ------------------------------------------------------------------------------ the fast writer

/** Thrown by the walk when a value is outside plain JSON data: the reference writer takes over. */
class NotPlainJson extends Error {}

/**
 * Stands for a number in the value handed to `JSON.stringify`. It shows up in the text as the
 * quoted, escaped string `"\u0000pyjson-number\u0000"`; a data string equal to it would add one
 * occurrence too many, which the count check in {@link toPythonJson} catches.
 */
const PLACEHOLDER = "\u0000pyjson-number\u0000";
const PLACEHOLDER_TEXT = JSON.stringify(PLACEHOLDER);

/**
 * True when `JSON.stringify` writes `n` differently from Python. JavaScript writes fixed notation
 * for 1e-7 <= |n| < 1e21 and `1e+21`/`1.5e-7` otherwise; Python's repr switches at 1e-4 and 1e16
 * and pads the exponent to two digits. A fraction is always below 2^53 < 1e16, so for a
 * fraction only the small end differs; a whole number differs when it is not a safe integer
 * (Python writes it as a float) and, under a float key, always (`.0`).
 */
function needsPythonText(n: number, floatKey: boolean): boolean {
  if (Number.isInteger(n)) return floatKey || !Number.isSafeInteger(n);
  return Math.abs(n) < 1e-4;
}

/**
 * {@link pythonFloat} with a shortcut for the common case, whole epoch seconds: a safe integer has
 * fewer than 16 digits, so Python writes its digits and `.0`. The tests hold it to pythonFloat.
 */
function floatText(n: number): string {
  if (Number.isSafeInteger(n)) return Object.is(n, -0) ? "-0.0" : `${n}.0`;
  return pythonFloat(n);
}

/**
 * Walks `value` depth-first in the order `JSON.stringify` writes it, checks it is plain JSON data,
 * and returns it with every number that Python writes differently replaced by {@link PLACEHOLDER}
 * (containers on the way are shallow-copied; the rest is shared, untouched). The reference's text
 * for each replaced number is pushed to `texts` in order.
 */
function prepare(value: unknown, floatKey: boolean, texts: string[]): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new NotPlainJson();
      if (!needsPythonText(value, floatKey)) return value;
      texts.push(floatKey ? floatText(value) : pythonNumber(value));
      return PLACEHOLDER;
    case "object":
      break;
    default:
      throw new NotPlainJson();
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      // A hole or `undefined` item: JSON.stringify writes null, the reference differs for holes.
      if (item === undefined) throw new NotPlainJson();
      const next = prepare(item, floatKey, texts);
      if (next !== item) {
        copy ??= value.slice();
        copy[i] = next;
      }
    }
    return copy ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  // Class instances, Dates (toJSON), boxed primitives, Maps: not plain data.
  if (proto !== Object.prototype && proto !== null) throw new NotPlainJson();
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === undefined) continue; // left out by both writers
    const next = prepare(item, FLOAT_KEYS.has(key), texts);
    if (next !== item) {
      copy ??= { ...record };
      // An own key of the copy (spread copies an own "__proto__" too), so this never sets a prototype.
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/**
 * The output as pieces to concatenate: JSON.stringify's text cut at the placeholders, with the
 * Python spelling of each number between them. Null when the reference writer must write it.
 */
function fastPieces(value: unknown): string[] | null {
  const texts: string[] = [];
  let prepared: unknown;
  try {
    if (value === undefined) return null;
    prepared = prepare(value, false, texts);
  } catch (error) {
    if (error instanceof NotPlainJson) return null;
    throw error;
  }
  const text = JSON.stringify(prepared, null, 2);
  if (texts.length === 0) return [text];
  const parts = text.split(PLACEHOLDER_TEXT);
  // Every placeholder is one whole string token. Any other match ends at the closing quote of a
  // data string or key that contains the placeholder, and makes one part too many.
  if (parts.length !== texts.length + 1) return null;
  const pieces: string[] = [parts[0] ?? ""];
  for (let i = 0; i < texts.length; i++) pieces.push(texts[i] ?? "", parts[i + 1] ?? "");
  return pieces;
}

/**
 * Serializes `value` the way Python's `json.dumps(value, ensure_ascii=False, indent=2)` does,
 * byte for byte the same as {@link toPythonJsonReference}, at close to `JSON.stringify` speed.
 * Object keys keep insertion order; `undefined` properties are left out.
 *
 * JavaScript cannot tell `1.0` from `1`, so a whole number is written as a Python int unless its
 * key is in {@link FLOAT_KEYS}; and JavaScript objects list integer-like keys (`"2"`) first, so
 * such keys come out in that order. Neither occurs in the files of the on-disk contract.
 * @throws TypeError for values JSON cannot hold (NaN, Infinity, functions, symbols, bigints).
 */
export function toPythonJson(value: unknown): string {
  const pieces = fastPieces(value);
  if (!pieces) return toPythonJsonReference(value);
  let out = "";
  for (const piece of pieces) out += piece;
  return out;
}

/**
 * {@link toPythonJson}'s text as UTF-8 bytes, which is what a save writes. When numbers had to be
 * respelled, the pieces are encoded straight into one buffer: joining them into one string first
 * would copy the whole text once more (for a 1 MB file that copy costs about as much as
 * JSON.stringify itself). The pieces split only at ASCII quotes, so no character is cut in two.
 * Node only (Buffer).
 */
export function toPythonJsonBytes(value: unknown): Buffer {
  const pieces = fastPieces(value) ?? [toPythonJsonReference(value)];
  if (pieces.length === 1) return Buffer.from(pieces[0] ?? "", "utf8");
  let total = 0;
  for (const piece of pieces) total += Buffer.byteLength(piece, "utf8");
  const out = Buffer.allocUnsafe(total);
  let offset = 0;
  for (const piece of pieces) offset += out.write(piece, offset, "utf8");
  return out;
}

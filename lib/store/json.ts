/**
 * JSON text exactly as Python's `json.dumps(data, ensure_ascii=False, indent=2)` writes it, which
 * is what the seed's `_atomic_write_json` produces: 2-space indent, `", "`-free item separators
 * with newlines, `": "` after keys, `[]` and `{}` for empty containers, non-ASCII characters as
 * themselves, and no trailing newline. Pure: no I/O.
 */

/**
 * Keys whose numeric values are Python floats in the seed (epoch seconds such as
 * `pending_messages[].created_at`): a whole number there is written `1752251700.0`, as Python does.
 */
export const FLOAT_KEYS: ReadonlySet<string> = new Set(["created_at", "timestamp", "started_at", "finished_at"]);

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
 * Serializes `value` the way Python's `json.dumps(value, ensure_ascii=False, indent=2)` does.
 * Object keys keep insertion order; `undefined` properties are left out.
 *
 * JavaScript cannot tell `1.0` from `1`, so a whole number is written as a Python int unless its
 * key is in {@link FLOAT_KEYS}; and JavaScript objects list integer-like keys (`"2"`) first, so
 * such keys come out in that order. Neither occurs in the files of the on-disk contract.
 */
export function toPythonJson(value: unknown): string {
  const out: string[] = [];
  write(value, "", null, out);
  return out.join("");
}

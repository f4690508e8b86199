/**
 * Caller-configured patterns for internal account ids (read later from `models.json` or the
 * settings). The syntax is deliberately tiny so a compiled pattern can never backtrack badly:
 *
 *   literal text with placeholders `{class:n}` or `{class:min-max}`
 *   class ∈ digit | upper | lower | alpha | alnum | hex | word (alnum plus `_`)
 *
 * e.g. `acct_{alnum:16}`, `UID-{digit:6-10}`, `cust-{hex:24}-{digit:2}`.
 *
 * Rules, each refused with a ValidationError that says why:
 * - the pattern starts with a literal of at least 2 characters (an anchor, so it cannot match
 *   arbitrary words or numbers), literals use only `A-Z a-z 0-9 _ - . : / # @`;
 * - 1 ≤ min ≤ max ≤ 64 per placeholder, at most 8 placeholders, whole pattern ≤ 128 characters;
 * - two placeholders are never adjacent, and a variable-length placeholder is followed either by
 *   the end or by a literal whose first character is outside its class. So every character of
 *   the input has exactly one place it can go: matching is linear in the span length (≤ 8·64 +
 *   128), and total work is O(input × bounded span).
 * Matches are case-sensitive and must not touch a letter, digit or `_` on either side.
 */
import { z } from "zod";
import { ValidationError } from "@/lib/contracts/errors";

/** One configured pattern, as stored in settings or `models.json`. */
const accountIdPatternSchema = z.string().min(3).max(128);

/** A list of configured patterns. */
export const accountIdPatternsSchema = z.array(accountIdPatternSchema).max(64);

const CLASSES = {
  digit: { re: "0-9", test: /^[0-9]$/ },
  upper: { re: "A-Z", test: /^[A-Z]$/ },
  lower: { re: "a-z", test: /^[a-z]$/ },
  alpha: { re: "A-Za-z", test: /^[A-Za-z]$/ },
  alnum: { re: "A-Za-z0-9", test: /^[A-Za-z0-9]$/ },
  hex: { re: "0-9A-Fa-f", test: /^[0-9A-Fa-f]$/ },
  word: { re: "A-Za-z0-9_", test: /^[A-Za-z0-9_]$/ },
} as const;

type ClassName = keyof typeof CLASSES;

type Token = { type: "literal"; text: string } | { type: "slot"; cls: ClassName; min: number; max: number };

const MAX_SLOTS = 8;
const MAX_SLOT_LEN = 64;
const LITERAL_CHAR = /^[A-Za-z0-9_\-.:/#@]$/;

/** A compiled account-id pattern: the source it came from and a global, bounded regex. */
export interface CompiledAccountPattern {
  source: string;
  regex: RegExp;
}

function fail(source: string, reason: string): never {
  throw new ValidationError(`Account id pattern "${source}" is refused: ${reason}`, { pattern: source, reason });
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    if (source[i] === "{") {
      const close = source.indexOf("}", i);
      if (close < 0) fail(source, "a `{` has no closing `}`");
      const m = /^\{([a-z]+):(\d{1,3})(?:-(\d{1,3}))?\}$/.exec(source.slice(i, close + 1));
      if (!m) fail(source, "a placeholder must read {class:n} or {class:min-max}");
      const cls = m[1] ?? "";
      if (!Object.prototype.hasOwnProperty.call(CLASSES, cls)) {
        fail(source, `unknown class "${cls}" (use ${Object.keys(CLASSES).join(", ")})`);
      }
      const min = Number(m[2]);
      const max = m[3] === undefined ? min : Number(m[3]);
      if (min < 1 || max < min || max > MAX_SLOT_LEN) fail(source, `lengths must satisfy 1 ≤ min ≤ max ≤ ${MAX_SLOT_LEN}`);
      tokens.push({ type: "slot", cls: cls as ClassName, min, max });
      i = close + 1;
    } else {
      const ch = source.charAt(i);
      if (!LITERAL_CHAR.test(ch)) fail(source, `the character "${ch}" is not allowed in a literal`);
      const last = tokens[tokens.length - 1];
      if (last?.type === "literal") last.text += ch;
      else tokens.push({ type: "literal", text: ch });
      i++;
    }
  }
  return tokens;
}

function escapeLiteral(text: string): string {
  return text.replace(/[.\-/#:@]/g, (c) => `\\${c}`);
}

/**
 * Validates and compiles one pattern. Throws a ValidationError naming the pattern and the rule
 * it breaks; never builds a regex from unchecked input.
 */
export function compileAccountPattern(source: string): CompiledAccountPattern {
  if (!accountIdPatternSchema.safeParse(source).success) fail(String(source), "it must be a string of 3 to 128 characters");
  const tokens = tokenize(source);
  const first = tokens[0];
  if (first?.type !== "literal" || first.text.length < 2) fail(source, "it must start with a literal prefix of at least 2 characters");
  const slots = tokens.filter((t) => t.type === "slot");
  if (slots.length === 0) fail(source, "it needs at least one placeholder such as {digit:8}");
  if (slots.length > MAX_SLOTS) fail(source, `at most ${MAX_SLOTS} placeholders are allowed`);
  let body = "";
  tokens.forEach((t, idx) => {
    if (t.type === "literal") {
      body += escapeLiteral(t.text);
      return;
    }
    const next = tokens[idx + 1];
    if (next?.type === "slot") fail(source, "two placeholders may not be adjacent (put a literal between them)");
    if (t.min !== t.max && next?.type === "literal" && CLASSES[t.cls].test.test(next.text.charAt(0))) {
      fail(source, `a variable-length {${t.cls}} may not be followed by "${next.text.charAt(0)}", which it could also match`);
    }
    body += `[${CLASSES[t.cls].re}]{${t.min}${t.min === t.max ? "" : `,${t.max}`}}`;
  });
  // The boundaries refuse a match glued to a longer word, so `acct_…` inside `xacct_…` is not taken.
  return { source, regex: new RegExp(`(?<![A-Za-z0-9_])${body}(?![A-Za-z0-9_])`, "g") };
}

/** Compiles a list of patterns; the first refused one throws. */
export function compileAccountPatterns(sources: readonly string[]): CompiledAccountPattern[] {
  // The list is checked apart from its items so a bad item is reported by its own rule.
  if (!Array.isArray(sources) || sources.length > 64) throw new ValidationError("Account id patterns must be a list of at most 64 strings");
  return sources.map(compileAccountPattern);
}

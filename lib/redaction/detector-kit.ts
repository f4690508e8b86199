/**
 * What every detector of the redaction pass is made of: the kinds, the candidate and detector
 * shapes, and the small checks and boundaries they share (./detectors, ./token-detectors,
 * ./phone-detectors). Pure.
 */

/** What a masked span was. The Memory page shows this, never the content. */
export type RedactionKind =
  | "email"
  | "phone"
  | "api_key"
  | "jwt"
  | "bearer_token"
  | "private_key"
  | "secret"
  | "ipv4"
  | "ipv6"
  | "account_id"
  | "id_card"
  | "bank_card";

/** A found span, in UTF-16 offsets of the original text, end exclusive. */
export interface Candidate {
  kind: RedactionKind;
  start: number;
  end: number;
}

/** One detector: a global regex and a function from a match to zero or one candidate. */
export interface Detector {
  kind: RedactionKind;
  regex: RegExp;
  accept(m: RegExpExecArray, text: string, now: Date): Candidate | null;
}

/** The whole match as a candidate of `kind`. */
export const whole = (kind: RedactionKind) => (m: RegExpExecArray): Candidate => ({ kind, start: m.index, end: m.index + m[0].length });

/** A candidate covering only capture group `g` (the value after a label). */
export function group(kind: RedactionKind, m: RegExpExecArray, g: number): Candidate {
  const value = m[g] ?? "";
  const start = m.index + m[0].length - value.length;
  return { kind, start, end: start + value.length };
}

export const digitsOf = (s: string): string => s.replace(/\D/g, "");
export const hasDigit = (s: string): boolean => /\d/.test(s);
export const hasLetter = (s: string): boolean => /[A-Za-z]/.test(s);

/**
 * True when `s` mixes at least two of upper case, lower case and digits: a generated token body
 * does, a placeholder (`xxxxxxxx…`, `YOUR_TOKEN_HERE`) or a word does not.
 */
export function looksRandom(s: string): boolean {
  const classes = Number(/[A-Z]/.test(s)) + Number(/[a-z]/.test(s)) + Number(/\d/.test(s));
  return classes >= 2;
}

/** A digit that may not touch a numeric span (a longer number, a decimal, a word). */
export const NUM_BEFORE = String.raw`(?<![0-9A-Za-z_.\/\-+])`;
export const NUM_AFTER = String.raw`(?![0-9A-Za-z_]|[.\-]\d)`;

/** Words that make a dotted number a version rather than an address or a phone number. */
export const VERSION_BEFORE = /(?<![A-Za-z])(?:version|ver\.?|release|版本号?|版本为|v)[ \t]{0,2}[:=：]?[ \t]{0,2}$/i;

/** The 12 characters before `index`, for the label checks above. */
export const before = (text: string, index: number, n = 12): string => text.slice(Math.max(0, index - n), index);

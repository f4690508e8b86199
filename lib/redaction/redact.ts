/**
 * The redaction pass run before anything is written to long-term memory. Pure: text in, masked
 * text and the list of masked spans out.
 *
 * Overlaps: every detector reports its candidates, then spans are taken greedily, longest first;
 * on equal length the more specific kind wins (order of {@link KIND_PRIORITY}), then the earlier
 * start. A span that overlaps one already taken is dropped. So `Bearer eyJ…` is one
 * `bearer_token`, `13812345678@qq.com` is one `email`, and an 18-digit number that is both a
 * valid ID card and Luhn-valid is an `id_card`.
 */
import { compileAccountPatterns, type CompiledAccountPattern } from "./account-patterns";
import { DETECTORS, type Candidate, type RedactionKind } from "./detectors";

export type { RedactionKind } from "./detectors";

/** Kinds from most to least specific; the earlier one wins a tie in length. */
export const KIND_PRIORITY: readonly RedactionKind[] = [
  "private_key",
  "jwt",
  "api_key",
  "bearer_token",
  "secret",
  "account_id",
  "id_card",
  "bank_card",
  "email",
  "phone",
  "ipv6",
  "ipv4",
];

/** One masked span, in UTF-16 offsets of the ORIGINAL text, end exclusive. */
interface RedactedSpan {
  kind: RedactionKind;
  start: number;
  end: number;
}

/** What {@link redact} returns: the masked text and the spans it masked, in order. */
export interface RedactionResult {
  text: string;
  spans: RedactedSpan[];
}

/** Options of one pass. */
export interface RedactOptions {
  /** Account-id patterns, raw (compiled here) or already compiled with {@link compileAccountPatterns}. */
  accountPatterns?: readonly string[] | readonly CompiledAccountPattern[];
  /** Clock for the ID card's birth-date check (a birth year cannot be in the future). */
  now?: Date;
}

/** The marker a span of `kind` is replaced by. */
export function redactionMarker(kind: RedactionKind): string {
  return `[redacted:${kind}]`;
}

const rank = new Map(KIND_PRIORITY.map((k, i) => [k, i]));

function compiled(patterns: RedactOptions["accountPatterns"]): CompiledAccountPattern[] {
  if (!patterns || patterns.length === 0) return [];
  if (typeof patterns[0] === "string") return compileAccountPatterns(patterns as readonly string[]);
  return patterns as CompiledAccountPattern[];
}

function* matches(regex: RegExp, text: string): Generator<RegExpExecArray> {
  // A copy per pass: the shared detectors hold `lastIndex`, and passes may interleave.
  const re = new RegExp(regex.source, regex.flags);
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    yield m;
  }
}

/** Every candidate span of every detector, before overlaps are settled. */
function findCandidates(text: string, options: RedactOptions = {}): Candidate[] {
  const now = options.now ?? new Date();
  const out: Candidate[] = [];
  for (const d of DETECTORS) {
    for (const m of matches(d.regex, text)) {
      const c = d.accept(m, text, now);
      if (c && c.end > c.start) out.push(c);
    }
  }
  for (const p of compiled(options.accountPatterns)) {
    for (const m of matches(p.regex, text)) out.push({ kind: "account_id", start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * The kinds that are credentials: what lets someone act as the owner (keys, tokens, private
 * keys, passwords), as opposed to personal data (e-mail, phone, cards) or addresses.
 */
const CREDENTIAL_KINDS: ReadonlySet<RedactionKind> = new Set(["api_key", "jwt", "bearer_token", "private_key", "secret"]);

const CREDENTIAL_DETECTORS = DETECTORS.filter((d) => CREDENTIAL_KINDS.has(d.kind));

/**
 * True when `text` holds a credential by its shape: a well-known key or token, a JWT, a bearer
 * token, a PEM private key, a URL's password or a labelled secret. Runs only those detectors.
 * Used beyond memory (a command's environment, lib/commands/env.ts).
 */
export function holdsCredential(text: string): boolean {
  const folded = foldWidth(text);
  const now = new Date();
  for (const d of CREDENTIAL_DETECTORS) {
    for (const m of matches(d.regex, folded)) if (d.accept(m, folded, now)) return true;
  }
  return false;
}

/** Settles overlaps: longest, then most specific kind, then earliest; result sorted by start. */
function resolveOverlaps(candidates: readonly Candidate[], textLength: number): RedactedSpan[] {
  const order = [...candidates].sort(
    (a, b) => b.end - b.start - (a.end - a.start) || rank.get(a.kind)! - rank.get(b.kind)! || a.start - b.start,
  );
  // One byte per character: checking a candidate costs its own length, so the whole pass stays
  // linear in the candidates' total length whatever order they arrive in.
  const used = new Uint8Array(textLength);
  const taken: RedactedSpan[] = [];
  for (const c of order) {
    let free = true;
    for (let i = c.start; i < c.end && free; i++) free = used[i] === 0;
    if (!free) continue;
    used.fill(1, c.start, c.end);
    taken.push({ kind: c.kind, start: c.start, end: c.end });
  }
  return taken.sort((a, b) => a.start - b.start);
}

/**
 * Full-width ASCII forms (`１３８…`, `＠`, `：`) and the ideographic space, folded to ASCII so
 * detectors see them. Each is one UTF-16 unit before and after, so offsets are unchanged.
 */
function foldWidth(text: string): string {
  return text.replace(/[\uff01-\uff5e\u3000]/g, (c) => (c === "\u3000" ? " " : String.fromCharCode(c.charCodeAt(0) - 0xfee0)));
}

/**
 * Masks e-mail addresses, phone numbers, API keys and tokens, private keys, IP addresses, configured account
 * ids, Chinese resident ID cards and bank cards. Each span becomes `[redacted:<kind>]`; the
 * spans returned point into the original `text`, so a caller can show kinds without content.
 * Throws a ValidationError when a configured account pattern is refused.
 */
export function redact(text: string, options: RedactOptions = {}): RedactionResult {
  const spans = resolveOverlaps(findCandidates(foldWidth(text), options), text.length);
  let out = "";
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + redactionMarker(s.kind);
    at = s.end;
  }
  return { text: out + text.slice(at), spans };
}

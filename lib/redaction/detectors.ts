/**
 * The detectors of the redaction pass. Each is a regex that only finds candidates plus a check
 * that confirms them (checksum, valid address, label). Every quantifier is bounded (no `+` or
 * `*`), no repeated group can split the same text in an unbounded number of ways, and each
 * pattern opens with a boundary lookbehind, so inside a long run of one character all but one
 * start position fail at once: a failed attempt costs at most its longest span, and the pass
 * stays O(input × longest span). The 1 MB tests in redact.test.ts exercise this.
 */
import { before, digitsOf, group, hasDigit, hasLetter, NUM_AFTER, NUM_BEFORE, VERSION_BEFORE, whole, type Detector } from "./detector-kit";
import { NATIONAL_PHONE_DETECTORS } from "./phone-detectors";
import { TOKEN_DETECTORS } from "./token-detectors";
import { isBankCard, isChineseIdCard, isIPv4, isIPv6, luhnValid } from "./validators";

export type { Candidate, Detector, RedactionKind } from "./detector-kit";

/** File extensions that follow `name@2x.` and the like; they are not top-level domains. */
const FILE_EXTENSIONS = new Set([
  "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "avif", "js", "mjs", "cjs", "ts", "tsx", "jsx",
  "css", "scss", "json", "map", "html", "txt", "md", "yml", "yaml", "lock", "log", "pdf", "zip", "gz", "tgz", "wasm",
]);

/** Words that name a card number just before it (within 16 characters). */
const CARD_LABEL = /(?:card|卡号|银行卡|信用卡|借记卡|储蓄卡|账户|帐户)[^0-9]{0,6}$/i;

/** The text before a URL's password: `scheme://user:`. */
const URL_USER_BEFORE = /[A-Za-z][A-Za-z0-9+.\-]{0,20}:\/\/[^\s:/@]{1,64}:$/;

const CORE_DETECTORS: readonly Detector[] = [
  {
    kind: "email",
    regex: /(?<![A-Za-z0-9._%+\-])[A-Za-z0-9_][A-Za-z0-9._%+\-]{0,63}@(?:[A-Za-z0-9\-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9_\-@])/g,
    accept(m, text) {
      const tld = m[0].slice(m[0].lastIndexOf(".") + 1).toLowerCase();
      if (FILE_EXTENSIONS.has(tld)) return null;
      // `scheme://user:password@host` is a credential, taken by the URL detector below.
      if (URL_USER_BEFORE.test(text.slice(Math.max(0, m.index - 90), m.index))) return null;
      return whole("email")(m);
    },
  },
  {
    // Chinese mobile: 1[3-9] and 9 more digits, optionally +86/0086, grouped 3-4-4 by space or dash.
    kind: "phone",
    regex: new RegExp(String.raw`${NUM_BEFORE}(?:(?:\+|00)86[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}${NUM_AFTER}`, "g"),
    accept: whole("phone"),
  },
  {
    // International: +country then up to 6 groups split by space, dot, dash or parentheses.
    // No trailing condition in the regex, so the first greedy attempt succeeds (backtracking only
    // inside the 1–3 digit country code); the digit count and what follows are checked after.
    kind: "phone",
    regex: /(?<![0-9A-Za-z_+])\+[1-9]\d{0,2}(?:[ .\-]{0,2}\(?\d{1,5}\)?){1,6}/g,
    accept(m, text) {
      const after = text.charCodeAt(m.index + m[0].length);
      if (after >= 48 && after <= 57) return null;
      const span = m[0];
      const opens = (span.match(/\(/g) ?? []).length;
      const closes = (span.match(/\)/g) ?? []).length;
      if (opens !== closes) return null;
      const n = digitsOf(span).length;
      if (n < 8 || n > 15) return null;
      return { kind: "phone", start: m.index, end: m.index + span.length };
    },
  },
  {
    kind: "api_key",
    // OpenAI: sk-, sk-proj-, sk-svcacct-, sk-admin- then a random body.
    regex: /(?<![A-Za-z0-9_\-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,400}/g,
    accept: (m) => (hasDigit(m[0].slice(3)) && hasLetter(m[0].slice(3)) ? whole("api_key")(m) : null),
  },
  {
    kind: "api_key",
    regex: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,251})(?![A-Za-z0-9_])/g,
    accept: whole("api_key"),
  },
  {
    // Slack and Google API keys: fixed prefixes, not asked for by name but the same class of leak.
    kind: "api_key",
    regex: /(?<![A-Za-z0-9_\-])(?:xox[abposr]-[A-Za-z0-9\-]{10,250}|AIza[0-9A-Za-z_\-]{35})(?![A-Za-z0-9_\-])/g,
    accept: (m) => (hasDigit(m[0].slice(4)) ? whole("api_key")(m) : null),
  },
  {
    // The password of `scheme://user:password@host` (database URLs, proxies, git remotes).
    kind: "secret",
    regex: /(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,20}:\/\/[^\s:/@]{1,64}:([^\s/@]{1,128})@/g,
    accept(m) {
      const end = m.index + m[0].length - 1; // the password ends just before the `@`
      return { kind: "secret", start: end - (m[1] ?? "").length, end };
    },
  },
  {
    kind: "api_key",
    regex: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    accept: whole("api_key"),
  },
  {
    // An AWS secret key is 40 base64 characters with nothing to tell it apart, so only a label counts.
    kind: "api_key",
    regex: /(?<![A-Za-z0-9])(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)["']?[ \t]{0,4}[:=][ \t]{0,4}["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    accept: (m) => group("api_key", m, 1),
  },
  {
    kind: "jwt",
    regex: /(?<![A-Za-z0-9_\-.])eyJ[A-Za-z0-9_\-]{5,4096}\.eyJ[A-Za-z0-9_\-]{2,8192}\.[A-Za-z0-9_\-]{0,4096}(?![A-Za-z0-9_\-]|\.[A-Za-z0-9_\-])/g,
    accept: whole("jwt"),
  },
  {
    kind: "bearer_token",
    regex: /(?<![A-Za-z0-9_])[Bb]earer[ \t]{1,8}([A-Za-z0-9._~+/=\-]{8,4096})(?![A-Za-z0-9._~+/=\-])/g,
    accept: (m) => (hasDigit(m[1] ?? "") ? whole("bearer_token")(m) : null),
  },
  {
    // A value labelled as a secret. A git SHA or UUID is masked only here, under such a label;
    // `commit`, `sha`, `id` and `uuid` are not secret labels.
    kind: "secret",
    regex: /(?<![A-Za-z0-9])(?:api[_\- ]?key|access[_\- ]?token|auth[_\- ]?token|refresh[_\- ]?token|client[_\- ]?secret|secret[_\- ]?key|private[_\- ]?key|secret|token|password|passwd|密钥|令牌|密码|口令)["']?(?:[ \t]{0,4}[:=：]|[ \t]{1,4}is[ \t]|[ \t]{0,4}[为是])[ \t]{0,4}["'`]?([^\s"'`,;<>()\[\]{}\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]{8,512})/gi,
    accept: (m) => (hasDigit(m[1] ?? "") ? group("secret", m, 1) : null),
  },
  {
    kind: "ipv4",
    regex: /(?<![0-9A-Za-z_.])(?:\d{1,3}\.){3}\d{1,3}(?![0-9A-Za-z_]|\.\d)/g,
    accept: (m, text) =>
      isIPv4(m[0]) && !VERSION_BEFORE.test(before(text, m.index)) ? whole("ipv4")(m) : null,
  },
  {
    kind: "ipv6",
    regex: /(?<![0-9A-Za-z_:.])[0-9A-Fa-f:][0-9A-Fa-f:.]{1,44}(?![0-9A-Za-z_:]|\.[0-9A-Za-z])/g,
    accept(m) {
      // A sentence may end the address with ":" or "."; the greedy class took it too.
      const v = /[^:.][:.]$/.test(m[0]) && !m[0].endsWith("::") ? m[0].slice(0, -1) : m[0];
      // `std::` or a bare `::` in code is not an address; a real one carries a digit.
      if (!hasDigit(v) || (v.match(/:/g) ?? []).length < 2 || !isIPv6(v)) return null;
      return { kind: "ipv6", start: m.index, end: m.index + v.length };
    },
  },
  {
    kind: "id_card",
    regex: new RegExp(String.raw`${NUM_BEFORE}\d{17}[\dXx]${NUM_AFTER}`, "g"),
    accept: (m, _text, now) => (isChineseIdCard(m[0], now.getUTCFullYear()) ? whole("id_card")(m) : null),
  },
  {
    // Contiguous 13–19 digits, or groups of four (a short tail allowed), or Amex 4-6-5.
    kind: "bank_card",
    regex: new RegExp(String.raw`${NUM_BEFORE}(?:\d{13,19}|\d{4}(?:[ \-]\d{4}){3}(?:[ \-]\d{1,3})?|\d{4}[ \-]\d{6}[ \-]\d{5})${NUM_AFTER}`, "g"),
    accept(m, text) {
      const digits = digitsOf(m[0]);
      if (isBankCard(digits)) return whole("bank_card")(m);
      // Under a card label, a Luhn-valid number counts whatever its issuer (local bank prefixes).
      if (luhnValid(digits) && CARD_LABEL.test(text.slice(Math.max(0, m.index - 16), m.index))) return whole("bank_card")(m);
      // "4111 1111 1111 1111 123": the card is the first four groups and the tail is something else.
      const four = /^\d{4}[ \-]\d{4}[ \-]\d{4}[ \-]\d{4}/.exec(m[0]);
      if (four && four[0].length < m[0].length && isBankCard(digitsOf(four[0]))) {
        return { kind: "bank_card", start: m.index, end: m.index + four[0].length };
      }
      return null;
    },
  },
];

/**
 * Built-in detectors, in no particular order: overlaps are settled by the caller. The
 * well-known token shapes live in ./token-detectors, national phone formats in ./phone-detectors.
 */
export const DETECTORS: readonly Detector[] = [...CORE_DETECTORS, ...TOKEN_DETECTORS, ...NATIONAL_PHONE_DETECTORS];

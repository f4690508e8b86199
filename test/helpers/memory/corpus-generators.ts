/**
 * Seeded generators for the redaction corpus. They build values from their definitions
 * (Luhn, MOD 11-2, address grammar) — never by running the redactor — so the corpus's expected
 * spans are independent of the code under test, and the same seed gives the same corpus.
 */
import type { RedactionKind } from "@/lib/redaction/detectors";

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Generator helpers bound to one PRNG. */
export function makeGen(seed: number) {
  const rnd = prng(seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const chars = (alphabet: string, n: number): string => Array.from({ length: n }, () => alphabet.charAt(int(0, alphabet.length - 1))).join("");
  const digits = (n: number): string => chars("0123456789", n);
  const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const B64URL = `${ALNUM}-_`;

  /** Luhn check digit for a payload (computed from the definition). */
  const luhnDigit = (payload: string): string => {
    let sum = 0;
    for (let i = 0; i < payload.length; i++) {
      let d = Number(payload[payload.length - 1 - i]);
      if (i % 2 === 0) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return String((10 - (sum % 10)) % 10);
  };

  /** A Luhn-valid card with a real issuer prefix and length. */
  const card = (): string => {
    const [prefix, len] = pick<[string, number]>([
      ["4", 16], ["4", 13], ["4", 19], ["51", 16], ["55", 16], ["2221", 16], ["34", 15], ["37", 15],
      ["62", 16], ["62", 19], ["6011", 16], ["3530", 16],
    ]);
    const payload = prefix + digits(len - prefix.length - 1);
    return payload + luhnDigit(payload);
  };

  /** Same shape as {@link card} but the check digit is wrong. */
  const badCard = (): string => {
    const good = card();
    const last = Number(good[good.length - 1]);
    return good.slice(0, -1) + String((last + int(1, 9)) % 10);
  };

  const ID_W = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const idCheck = (first17: string): string => {
    let s = 0;
    for (let i = 0; i < 17; i++) s += Number(first17[i]) * ID_W[i]!;
    return "10X98765432".charAt(s % 11);
  };
  const pad = (n: number, w: number): string => String(n).padStart(w, "0");
  /** 17 digits of a resident ID: province, area, a real birth date, sequence. */
  const idBody = (provinces: readonly number[]): string => {
    const y = int(1940, 2010);
    const m = int(1, 12);
    const d = int(1, 28);
    return `${pick(provinces)}${digits(4)}${y}${pad(m, 2)}${pad(d, 2)}${digits(3)}`;
  };
  const ALL_PROVINCES = [11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52, 53, 54, 61, 62, 63, 64, 65];
  /** Provinces whose 18-digit numbers can never pass as a card prefix (for negatives). */
  const SAFE_PROVINCES = [11, 12, 13, 31, 32, 33, 44, 45, 51, 52, 61];
  const idCard = (): string => {
    const body = idBody(ALL_PROVINCES);
    return body + idCheck(body);
  };
  const badIdCard = (): string => {
    const body = idBody(SAFE_PROVINCES);
    const good = idCheck(body);
    return body + pick("0123456789X".split("").filter((c) => c !== good));
  };

  const mobile = (): string => `1${int(3, 9)}${digits(9)}`;
  const mobileGrouped = (sep: string): string => {
    const m = mobile();
    return `${m.slice(0, 3)}${sep}${m.slice(3, 7)}${sep}${m.slice(7)}`;
  };
  const intlPhone = (): string =>
    pick([
      () => `+44 20 ${digits(4)} ${digits(4)}`,
      () => `+1 (${int(200, 989)}) ${int(200, 989)}-${digits(4)}`,
      () => `+1-${int(200, 989)}-${int(200, 989)}-${digits(4)}`,
      () => `+33 1 ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`,
      () => `+49 30 ${digits(8)}`,
      () => `+81 3.${digits(4)}.${digits(4)}`,
      () => `+86 ${mobileGrouped(" ")}`,
      () => `+${int(1, 9)}${digits(10)}`,
    ])();

  /** A national-format number without a country code (NANP or a trunk 0), valid by its plan. */
  const nationalPhone = (): string => {
    const n = (): string => `${int(2, 9)}${int(0, 9)}${int(2, 9)}`; // NXX, never N11
    return pick([
      () => `(${n()}) ${n()}-${digits(4)}`,
      () => `${n()}-${n()}-${digits(4)}`,
      () => `${n()}.${n()}.${digits(4)}`,
      () => `020 ${int(3, 8)}${digits(3)} ${digits(4)}`,
      () => `07${int(1, 9)}${digits(2)} ${digits(6)}`,
      () => `030 ${int(1, 9)}${digits(7)}`,
      () => `0${int(1, 5)} ${digits(2)} ${digits(2)} ${digits(2)} ${digits(2)}`,
      () => `0${pick(["10", "21", "755", "571"])}-${int(2, 8)}${digits(7)}`,
      () => `0${int(3, 9)}-${digits(4)}-${digits(4)}`,
    ])();
  };

  /** A key of one of the vendor shapes taken from gitleaks' rules. */
  const vendorKey = (): string => {
    const hex = (k: number) => chars("0123456789abcdef", k - 1) + String(int(0, 9));
    const body = (k: number) => withDigit(chars(ALNUM, k));
    return pick([
      () => `${pick(["sk", "rk"])}_live_${body(24)}`,
      () => `whsec_${body(32)}`,
      () => `glpat-${body(20)}`,
      () => `npm_${body(36)}`,
      () => `hf_${chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1)}${chars("abcdefghijklmnopqrstuvwxyz", 1)}${chars(ALNUM, 32)}`,
      () => `SG.${body(22)}.${body(43)}`,
      () => `SK${hex(31)}${pick(["a", "b", "c"])}`,
      () => `LTAI${body(20)}`,
      () => `dop_v1_${hex(64)}`,
      () => `shpat_${hex(31)}f`,
    ])();
  };

  /** A PEM private key block with random base64 lines. */
  const pem = (): string => {
    const type = pick(["RSA ", "EC ", "OPENSSH ", ""]);
    const lines = Array.from({ length: int(2, 5) }, () => withDigit(chars(`${ALNUM}+/`, 64)));
    return `-----BEGIN ${type}PRIVATE KEY-----\n${lines.join("\n")}\n-----END ${type}PRIVATE KEY-----`;
  };

  const NAMES = ["zhangsan", "li.si", "wang_wu", "alice", "bob.smith", "ops-team", "dev+alerts", "chen.jing2024", "j.doe"];
  const DOMAINS = ["example.com", "example.cn", "mail.example.org", "corp.example.co.uk", "qq.com", "163.com", "foo-bar.io"];
  const email = (): string => `${pick(NAMES)}${int(0, 1) ? int(1, 99) : ""}@${pick(DOMAINS)}`;

  const ipv4 = (): string => pick([
    () => `10.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
    () => `192.168.${int(0, 255)}.${int(1, 254)}`,
    () => `172.${int(16, 31)}.${int(0, 255)}.${int(1, 254)}`,
    () => `${int(1, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
  ])();
  const hex4 = (): string => chars("0123456789abcdef", int(1, 4));
  /** A group that starts with a digit and still has at most four hex characters. */
  const hexD = (): string => `${int(1, 9)}${chars("0123456789abcdef", int(0, 3))}`;
  const ipv6 = (): string => pick([
    () => "::1",
    () => `2001:db8::${hex4()}`,
    () => `fe80::${hex4()}:${hex4()}:${hex4()}:${hexD()}`,
    () => Array.from({ length: 8 }, () => `${int(0, 9)}${chars("0123456789abcdef", 3)}`).join(":"),
    () => `::ffff:${ipv4()}`,
    () => `2001:db8:${hexD()}::${int(1, 9)}`,
  ])();

  const b64url = (s: string): string => Buffer.from(s).toString("base64url");
  const jwt = (): string =>
    `${b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64url(JSON.stringify({ sub: digits(6), iat: 1752251700 + int(0, 1e6) }))}.${chars(B64URL, 43)}`;
  const withDigit = (s: string): string => s.slice(0, -1) + String(int(0, 9));
  const openai = (): string => pick([() => `sk-${withDigit(chars(ALNUM, 48))}`, () => `sk-proj-${withDigit(chars(B64URL, 120))}`])();
  const github = (): string => pick([
    () => `${pick(["ghp", "gho", "ghu", "ghs", "ghr"])}_${chars(ALNUM, 36)}`,
    () => `github_pat_${chars(ALNUM, 22)}_${chars(ALNUM, 59)}`,
  ])();
  const awsId = (): string => `${pick(["AKIA", "ASIA"])}${chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
  const awsSecret = (): string => chars(`${ALNUM}/+`, 40);
  const opaqueToken = (): string => withDigit(chars(`${ALNUM}._-`, int(24, 48)));
  const uuid = (): string =>
    `${chars("0123456789abcdef", 8)}-${chars("0123456789abcdef", 4)}-4${chars("0123456789abcdef", 3)}-a${chars("0123456789abcdef", 3)}-${chars("0123456789abcdef", 12)}`;
  const sha = (): string => chars("0123456789abcdef", 40);

  return {
    int, pick, digits, chars, card, badCard, idCard, badIdCard, mobile, mobileGrouped, intlPhone, nationalPhone, email,
    ipv4, ipv6, jwt, openai, github, vendorKey, pem, awsId, awsSecret, opaqueToken, uuid, sha,
  };
}

/** One expected span of a sample. */
interface ExpectedSpan {
  kind: RedactionKind;
  start: number;
  end: number;
}

/** One corpus sample: text and its exact expected spans (empty for a negative). */
export interface Sample {
  text: string;
  spans: ExpectedSpan[];
}

/** A piece of a sample: plain text, or a sensitive value with its kind. */
export type Part = string | readonly [RedactionKind, string];

/** Joins parts into a sample, recording each sensitive value's offsets as it goes. */
export function compose(parts: readonly Part[]): Sample {
  let text = "";
  const spans: ExpectedSpan[] = [];
  for (const p of parts) {
    if (typeof p === "string") {
      text += p;
    } else {
      spans.push({ kind: p[0], start: text.length, end: text.length + p[1].length });
      text += p[1];
    }
  }
  return { text, spans };
}

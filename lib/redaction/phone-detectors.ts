/**
 * Phone numbers written in national format, without a country code (the `+…` and Chinese
 * mobile detectors are in ./detectors): North American `(415) 555-2671`, `415-555-2671`,
 * `415.555.2671`; and numbers with a trunk `0` — UK `020 7946 0958`, German `030 12345678` or
 * `030/12345678`, French `01 23 45 67 89`, Chinese landlines `010-12345678`, Japanese
 * `03-1234-5678`. The regexes only find digit groups; the checks below decide from the
 * numbering plans (NANP area and exchange codes, a 10–12 digit national number), so versions,
 * dates, durations, ISBNs and ports stay. Pure.
 */
import { before, NUM_AFTER, NUM_BEFORE, VERSION_BEFORE, type Candidate, type Detector } from "./detector-kit";

/** NANP: an area code and an exchange start 2–9, and neither is an N11 service code. */
function nanpValid(area: string, exchange: string): boolean {
  return !area.endsWith("11") && !exchange.endsWith("11");
}

/**
 * A national number after a trunk 0: the area (with its 0) and the groups after it. The number
 * has 10–12 digits; the groups after the area are split by one kind of separator and have 3 or
 * more digits each, except the French form of four space-separated pairs after a two-digit
 * area. When the last groups make it too long (`020 7946 0958 10 times`), the longest valid
 * prefix counts. Returns the length in `rest` of the groups taken, or null.
 */
function trunkGroupsEnd(area: string, rest: string): number | null {
  const parts = /^(\d{2,8})((?:[ \-]\d{2,8}){0,3})$/.exec(rest);
  if (!parts) return null;
  const groups = [parts[1]!];
  const seps: string[] = [];
  for (const g of (parts[2] ?? "").matchAll(/([ \-])(\d{2,8})/g)) {
    seps.push(g[1]!);
    groups.push(g[2]!);
  }
  for (let n = groups.length; n >= 1; n--) {
    const used = groups.slice(0, n);
    const digits = area.length + used.reduce((s, g) => s + g.length, 0);
    if (digits < 10 || digits > 12) continue;
    if (new Set(seps.slice(0, n - 1)).size > 1) continue;
    const french = area.length === 2 && n === 4 && used.every((g) => g.length === 2) && seps.slice(0, 3).every((c) => c === " ");
    if (!french && used.some((g) => g.length < 3)) continue;
    // The length in `rest` of the first n groups and the separators between them.
    return used.reduce((s, g) => s + g.length, 0) + (n - 1);
  }
  return null;
}

/** Detectors of national phone formats; added to the built-in list by ./detectors. */
export const NATIONAL_PHONE_DETECTORS: readonly Detector[] = [
  {
    // NANP: an optional trunk 1, then (NXX) NXX-XXXX or NXX-NXX-XXXX with one separator throughout.
    kind: "phone",
    regex: new RegExp(
      String.raw`${NUM_BEFORE}(?:1[ .\-])?(?:\(([2-9]\d{2})\)[ ]?([2-9]\d{2})[ .\-]|([2-9]\d{2})([ .\-])([2-9]\d{2})\4)\d{4}${NUM_AFTER}`,
      "g",
    ),
    accept(m, text): Candidate | null {
      const area = m[1] ?? m[3] ?? "";
      const exchange = m[2] ?? m[5] ?? "";
      if (!nanpValid(area, exchange)) return null;
      // `v415.555.2671` is a version, whatever its digits.
      if (m[4] === "." && VERSION_BEFORE.test(before(text, m.index))) return null;
      return { kind: "phone", start: m.index, end: m.index + m[0].length };
    },
  },
  {
    // A trunk 0 and an area of 1–4 more digits, in parentheses or followed by space, slash or dash,
    // then up to four digit groups.
    kind: "phone",
    regex: new RegExp(String.raw`${NUM_BEFORE}(?:\((0[1-9]\d{0,3})\)[ ]?|(0[1-9]\d{0,3})[ /\-])(\d{2,8}(?:[ \-]\d{2,8}){0,3})${NUM_AFTER}`, "g"),
    accept(m): Candidate | null {
      const area = m[1] ?? m[2] ?? "";
      const rest = m[3] ?? "";
      const len = trunkGroupsEnd(area, rest);
      if (len === null) return null;
      const restStart = m.index + m[0].length - rest.length;
      return { kind: "phone", start: m.index, end: restStart + len };
    },
  },
];

/**
 * Checksums and shape checks that turn a regex candidate into a finding. A pattern alone cannot
 * tell a bank card from an order number, so every numeric kind is confirmed here.
 */

/** Luhn (mod 10) check over a string of ASCII digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * Issuer prefixes of the card networks (Visa, Mastercard, Amex, UnionPay, Discover, JCB,
 * Diners, Maestro, Mir) with their lengths. Requiring one of them keeps Luhn-valid timestamps
 * and order numbers (one in ten random digit runs passes Luhn) from being taken for cards.
 */
export function hasCardIssuerPrefix(digits: string): boolean {
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  const p6 = Number(digits.slice(0, 6));
  if (digits[0] === "4") return n === 13 || n === 16 || n === 19; // Visa
  if (p2 >= 51 && p2 <= 55) return n === 16; // Mastercard
  if (p4 >= 2221 && p4 <= 2720) return n === 16; // Mastercard 2-series
  if (p2 === 34 || p2 === 37) return n === 15; // Amex
  if (p2 === 62) return n >= 16 && n <= 19; // UnionPay
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649) || (p6 >= 622126 && p6 <= 622925)) return n >= 16 && n <= 19; // Discover
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19; // JCB
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return n >= 14 && n <= 19; // Diners
  if (p2 === 50 || (p2 >= 56 && p2 <= 58) || p2 === 63 || p2 === 67) return n >= 13 && n <= 19; // Maestro
  if (p4 >= 2200 && p4 <= 2204) return n >= 16 && n <= 19; // Mir
  if (p4 === 9558) return n === 19; // ICBC's own debit prefix
  return false;
}

/** A bank card number: 13–19 digits, a known issuer prefix, Luhn-valid. */
export function isBankCard(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && hasCardIssuerPrefix(digits) && luhnValid(digits);
}

/** Province-level codes that open a mainland resident ID (GB/T 2260 first two digits). */
const ID_PROVINCES = new Set([
  11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52, 53, 54, 61,
  62, 63, 64, 65, 71, 81, 82, 83,
]);

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = "10X98765432";

/** ISO 7064 MOD 11-2 check character for the first 17 digits of a resident ID. */
export function idCardCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (first17.charCodeAt(i) - 48) * ID_WEIGHTS[i]!;
  return ID_CHECK.charAt(sum % 11);
}

/** True when year/month/day form a real calendar date between 1900 and `maxYear`. */
export function isPlausibleDate(year: number, month: number, day: number, maxYear: number): boolean {
  if (year < 1900 || year > maxYear || month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

/**
 * An 18-character Chinese resident ID: a known province code, a plausible birth date
 * (1900 up to `maxYear`), and the MOD 11-2 check character (`X` in either case).
 */
export function isChineseIdCard(value: string, maxYear = new Date().getUTCFullYear()): boolean {
  if (!/^\d{17}[\dXx]$/.test(value)) return false;
  if (!ID_PROVINCES.has(Number(value.slice(0, 2)))) return false;
  const y = Number(value.slice(6, 10));
  const m = Number(value.slice(10, 12));
  const d = Number(value.slice(12, 14));
  if (!isPlausibleDate(y, m, d, maxYear)) return false;
  return idCardCheckChar(value.slice(0, 17)) === value.charAt(17).toUpperCase();
}

/** A dotted-quad IPv4 address; leading zeros are refused (they read as octal in some tools). */
export function isIPv4(value: string): boolean {
  const parts = value.split(".");
  if (parts.length !== 4) return false;
  return parts.every((p) => /^(?:0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/**
 * An IPv6 address in any RFC 4291 text form: full, `::`-compressed, or with a trailing IPv4
 * (IPv4-mapped / -compatible). Zone ids and prefix lengths are not part of the address.
 */
export function isIPv6(value: string): boolean {
  if (value.length < 2 || value.length > 45) return false;
  const halves = value.split("::") as [string, ...string[]];
  if (halves.length > 2) return false;
  const groupsOf = (s: string): string[] => (s === "" ? [] : s.split(":"));
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "") : [];
  const all = [...head, ...tail];
  let count = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i]!;
    if (i === all.length - 1 && g.includes(".")) {
      if (!isIPv4(g)) return false;
      count += 2;
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(g)) {
      count += 1;
    } else {
      return false;
    }
  }
  return halves.length === 2 ? count <= 7 : count === 8;
}

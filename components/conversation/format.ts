/** Small formatting helpers of the live conversation page. Pure. */

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];

/** `value` (an ISO time) relative to `now`: "5 seconds ago", "2 min. ago"; "" when unreadable. */
export function formatRelativeTime(value: string | null | undefined, now: number, locale: string): string {
  if (!value) return "";
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return "";
  const seconds = Math.round((at - now) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto", style: "short" });
  if (Math.abs(seconds) < 5) return format.format(0, "second");
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return format.format(seconds, "second");
}

/** A token count as people read it: 950, 12.4K, 1.2M. */
export function formatTokens(n: number, locale: string): string {
  return new Intl.NumberFormat(locale, { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

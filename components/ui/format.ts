/** Formatting helpers of the pages: local times, relative times, token counts (dollars: lib/models/cost.ts). Pure. */

/**
 * Dates as the store writes them: ISO local time with no zone (`2026-07-11T21:00:00`), the
 * server machine's clock. The browser runs on the same machine, so it is read as local time.
 */
export function formatLocalTime(value: string | undefined, locale: string): string {
  if (!value) return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

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


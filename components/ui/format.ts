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

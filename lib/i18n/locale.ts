/**
 * Locale choice, with no I/O so that the server layout and the browser switcher agree:
 * the `astrion_locale` cookie wins, else the browser's `Accept-Language` (any `zh*` means
 * Simplified Chinese), else English.
 */

/** The UI languages, as BCP 47 tags (also the `<html lang>` value). */
export const LOCALES = ["en", "zh-CN"] as const;
export type Locale = (typeof LOCALES)[number];

const DEFAULT_LOCALE: Locale = "en";

/** Name of the cookie that remembers the chosen language. */
export const LOCALE_COOKIE = "astrion_locale";

/** True when `value` is one of {@link LOCALES}. */
function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * Picks the locale from `Accept-Language`, honouring q-values: the first acceptable language
 * that is `zh*` gives `zh-CN`, the first `en*` gives `en`.
 */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number.parseFloat(q.slice(2)) : 1;
      return { tag: tag.toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((l) => l.tag && l.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag.startsWith("zh")) return "zh-CN";
    if (tag.startsWith("en")) return "en";
  }
  return undefined;
}

/** The locale for a request: cookie, else `Accept-Language`, else English. */
export function resolveLocale(cookieValue: string | undefined, acceptLanguage: string | null | undefined): Locale {
  if (isLocale(cookieValue)) return cookieValue;
  return localeFromAcceptLanguage(acceptLanguage) ?? DEFAULT_LOCALE;
}

/** Remembers the chosen locale for a year (browser only; the server reads it on the next render). */
export function writeLocaleCookie(locale: Locale): void {
  document.cookie = `${LOCALE_COOKIE}=${encodeURIComponent(locale)}; path=/; max-age=31536000; samesite=lax`;
}

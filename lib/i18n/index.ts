/**
 * Internationalization: typed message keys (English is the source), Simplified Chinese, the
 * locale rule shared by server and browser, and the client provider/hooks. Server components
 * import `getLocale`/`getT` from `@/lib/i18n/server`.
 */
export { en, type MessageKey } from "./dictionaries/en";
export { LOCALES, writeLocaleCookie, type Locale } from "./locale";
export { makeTranslator, translateParts, type TranslateFn } from "./translate";
export { I18nProvider } from "./i18n-provider";
export { useLocale, useT } from "./use-t";

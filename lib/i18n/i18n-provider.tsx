"use client";

import { createContext, useMemo, type ReactNode } from "react";
import type { Locale } from "./locale";
import { makeTranslator, type TranslateFn } from "./translate";

/** What the i18n context holds: the active locale and a translator bound to it. */
export interface I18nValue {
  locale: Locale;
  t: TranslateFn;
}

export const I18nContext = createContext<I18nValue | null>(null);

/** Provides the locale the server chose (cookie or Accept-Language) to every client component. */
export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  const value = useMemo<I18nValue>(() => ({ locale, t: makeTranslator(locale) }), [locale]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

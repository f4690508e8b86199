"use client";

import { useContext } from "react";
import { I18nContext, type I18nValue } from "./i18n-provider";
import type { TranslateFn } from "./translate";

function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useT() must be used inside <I18nProvider>");
  return value;
}

/** The translate function of the active locale: `t("nav.roles")`, `t("conv.agentCount", { n })`. */
export function useT(): TranslateFn {
  return useI18n().t;
}

/** The active locale (`en` or `zh-CN`). */
export function useLocale() {
  return useI18n().locale;
}

/** Pure message lookup and `{name}` interpolation, shared by server components and the browser. */
import { en, type MessageKey } from "./dictionaries/en";
import { zhCN } from "./dictionaries/zh-cn";
import type { Locale } from "./locale";
import { hasOwnKey } from "@/lib/own";

const DICTIONARIES: Record<Locale, Record<MessageKey, string>> = { en, "zh-CN": zhCN };

/** Values substituted for `{name}` placeholders. */
export type MessageVars = Record<string, string | number>;

/** A translate function bound to one locale. */
export type TranslateFn = (key: MessageKey, vars?: MessageVars) => string;

/** The message for `key` in `locale` with `{name}` placeholders filled in from `vars`. */
export function translate(locale: Locale, key: MessageKey, vars?: MessageVars): string {
  const template = DICTIONARIES[locale][key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (hasOwnKey(vars, name) ? String(vars[name]) : match));
}

/** A {@link TranslateFn} for `locale`. */
export function makeTranslator(locale: Locale): TranslateFn {
  return (key, vars) => translate(locale, key, vars);
}

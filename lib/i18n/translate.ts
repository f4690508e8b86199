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

/** One piece of a message split at its placeholders: fixed text, or the value of placeholder `name`. */
export type MessagePart = { text: string } | { name: string; value: string };

/**
 * The message for `key` split at its `{name}` placeholders, so a view can mark the filled-in
 * values (a file's data: a server's name, a source, a provider id) as not to be translated.
 */
export function translateParts(locale: Locale, key: MessageKey, vars: MessageVars): MessagePart[] {
  const parts: MessagePart[] = [];
  let last = 0;
  const template = DICTIONARIES[locale][key];
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    const name = m[1] ?? "";
    if (!hasOwnKey(vars, name)) continue;
    if (m.index > last) parts.push({ text: template.slice(last, m.index) });
    parts.push({ name, value: String(vars[name]) });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push({ text: template.slice(last) });
  return parts;
}

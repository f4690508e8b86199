/**
 * Words for a refused input, in the page's language: a text over its limit names the field and
 * the limit ("The goal is too long: at most 100,000 characters."), whether the browser caught it
 * before sending or the server answered it (a `validation_failed` issue with code `too_long`).
 * Pure: the limits come from the same zod schemas the server parses with.
 */
import type { z } from "zod";
import type { MessageKey } from "@/lib/i18n/dictionaries/en";
import type { TranslateFn } from "@/lib/i18n/translate";
import { ApiError } from "./api";

/** The fields a person types whose limits the UI names (`input.field.<field>`). */
export type InputField = "goal" | "message" | "answer" | "title" | "projectPath" | "name" | "description" | "body" | "reason" | "pattern";

/** From which share of its limit a text input shows how many characters it holds. */
const COUNTER_FROM = 0.8;

/** The most characters `schema` (a zod string, possibly trimmed or optional) allows, or null when it has no maximum. */
export function maxLengthOf(schema: z.ZodType): number | null {
  let s: unknown = schema;
  for (let i = 0; i < 8 && s && typeof s === "object"; i++) {
    const max = (s as { maxLength?: unknown }).maxLength;
    if (typeof max === "number") return max;
    const inner = (s as { unwrap?: () => unknown }).unwrap;
    if (typeof inner !== "function") break;
    s = inner.call(s);
  }
  return null;
}

/** The sentence of a `field` over its `max` characters, numbers in `locale`'s digits grouping. */
export function tooLongText(t: TranslateFn, locale: string, field: InputField, max: number): string {
  return t("input.tooLong", { field: t(`input.field.${field}` as MessageKey), max: new Intl.NumberFormat(locale).format(max) });
}

/** Whether a text of `length` characters shows its counter against `max`. */
export function showsCounter(length: number, max: number | null): boolean {
  return max !== null && length >= Math.floor(max * COUNTER_FROM);
}

/**
 * What to tell a person about a failed send of `field`: a limit in their language (the server's
 * coded issue, or a body too large), an unreachable server or instance, else the server's message. Never a
 * raw zod error: {@link bodyOf} and the server give coded issues instead.
 */
export function inputErrorText(error: unknown, t: TranslateFn, locale: string, field: InputField): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.code === "network_error") return t("input.networkError");
  // PostgreSQL + Redis: the instance holding the run did not answer a forwarded command (lib/runtime/run-commands.ts).
  if (error.code === "unavailable") return t("input.holderUnanswered");
  if (error.code === "payload_too_large") return t("input.bodyTooLarge", { field: t(`input.field.${field}` as MessageKey) });
  const long = error.fieldIssues.find((i) => i.code === "too_long" && typeof i.limit === "number");
  if (long?.limit !== undefined) return tooLongText(t, locale, field, long.limit);
  return error.message;
}

/**
 * {@link inputErrorText} for a form of several fields (`fields`: a field issue's path → its field):
 * the first text over its limit is named by its own field; anything else is worded as for `fallback`.
 */
export function formErrorText(error: unknown, t: TranslateFn, locale: string, fields: Readonly<Record<string, InputField>>, fallback: InputField): string {
  if (error instanceof ApiError) {
    for (const issue of error.fieldIssues) {
      const field = Object.hasOwn(fields, issue.path) ? fields[issue.path] : undefined;
      if (field && issue.code === "too_long" && typeof issue.limit === "number") return tooLongText(t, locale, field, issue.limit);
    }
  }
  return inputErrorText(error, t, locale, fallback);
}

/** The words of one field issue (a form's field): its limit in the page's language, else the server's message. */
export function issueText(issue: { code?: string; limit?: number; message: string }, t: TranslateFn, locale: string, field: InputField): string {
  return issue.code === "too_long" && typeof issue.limit === "number" ? tooLongText(t, locale, field, issue.limit) : issue.message;
}

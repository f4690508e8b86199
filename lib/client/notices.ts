/**
 * A runtime notice's text in the viewer's language: its i18n message (`key`, with `params`) when
 * this build knows the key, else the English text it carries (a notice from a newer server, or
 * one saved before notices had keys). Pure.
 */
import { en, type MessageKey } from "@/lib/i18n/dictionaries/en";
import type { TranslateFn } from "@/lib/i18n/translate";
import { hasOwnKey } from "@/lib/own";
import type { Notice } from "@/lib/contracts/events";

/** The text of `notice` as `t` renders it. */
export function noticeText(notice: Notice, t: TranslateFn): string {
  if (notice.key && notice.key.startsWith("notice.msg.") && hasOwnKey(en, notice.key)) return t(notice.key as MessageKey, notice.params);
  return notice.message;
}

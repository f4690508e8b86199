/**
 * The `{name}` values of a notice's text (`notice.msg.…`), shared by the server (which renders the
 * English `message`) and the page (which renders the text in its language): a `reason` the
 * dictionaries know (`notice.cause.<reason>`) becomes the `cause` words, filled in with the
 * notice's other values (a path, a folder). Pure.
 */
import { en, type MessageKey } from "./dictionaries/en";
import type { MessageVars, TranslateFn } from "./translate";
import { hasOwnKey } from "@/lib/own";

/** The i18n key of the words of a notice's `reason`, or null when the dictionaries have none. */
function causeKeyOf(reason: unknown): MessageKey | null {
  if (typeof reason !== "string") return null;
  const key = `notice.cause.${reason}`;
  return hasOwnKey(en, key) ? (key as MessageKey) : null;
}

/** `params` with `cause` worded by `t` from `reason` when it is a known one; unchanged otherwise. */
export function noticeVars(params: MessageVars, t: TranslateFn): MessageVars {
  const key = causeKeyOf(params.reason);
  return key ? { ...params, cause: t(key, params) } : params;
}

/**
 * A notice as the runtime makes it (lib/contracts/events.ts `Notice`): its text is an i18n key
 * (`notice.msg.…`) with `{name}` values the viewer's page renders in its language; a `reason`
 * (one of the contract's closed set) is worded by the dictionaries (`notice.cause.<reason>`);
 * the server's English goes along only in `message` (the English text, for logs and API
 * clients) and `detail` (an error's own message), which the page never renders. Pure.
 */
import type { MessageKey } from "@/lib/i18n/dictionaries/en";
import { noticeVars } from "@/lib/i18n/notice-vars";
import { makeTranslator, translate, type MessageVars } from "@/lib/i18n/translate";
import type { Notice, NoticeReason } from "@/lib/contracts/events";

/** The i18n key of a notice's text. */
export type NoticeKey = Extract<MessageKey, `notice.msg.${string}`>;

/** The `{name}` values of a notice: names, paths, identifiers, numbers, and its reason by code. */
export type NoticeParams = MessageVars & { reason?: NoticeReason };

/** What else a notice carries: what ties a failure to the work that failed, and the English detail. */
export type NoticeExtras = Pick<Notice, "trace_id" | "message_id" | "after_message_id" | "retryable" | "detail">;

const english = makeTranslator("en");

/** The notice of `code` worded by `key` with `params`, about the leader (null) or agent `agentId`, at `at`. */
export function makeNotice(level: Notice["level"], code: string, key: NoticeKey, params: NoticeParams, agentId: number | null, extras: NoticeExtras, at: string): Notice {
  const vars = params.cause === undefined ? noticeVars(params, english) : params;
  return { level, code, message: translate("en", key, vars), key, params: vars, agent_id: agentId, at, ...extras };
}

/**
 * The runtime's notices as a person should see them. Pure.
 *
 * - Text in the viewer's language: a notice's i18n message (`key`, with `params`) when this build
 *   knows the key, else the English text it carries (a notice from a newer server, or one saved
 *   before notices had keys). A `reason` param is worded by the page (`notice.cause.<reason>`,
 *   lib/i18n/notice-vars.ts), never by the server's English detail (`detail`, not rendered).
 * - One banner per problem: notices are grouped by what failed, not by when. A model failing is
 *   one problem however often it is reported (each retry, the call and its fallback, the leader
 *   and agents on the same endpoint, its "degraded" warning), and a call cap reached by a party
 *   whose model was failing is only its consequence.
 * - The failed work: the message a party's latest failure was on, while nothing came after it.
 */
import { en, type MessageKey } from "@/lib/i18n/dictionaries/en";
import { noticeVars } from "@/lib/i18n/notice-vars";
import type { TranslateFn } from "@/lib/i18n/translate";
import { hasOwnKey } from "@/lib/own";
import type { Notice } from "@/lib/contracts/events";
import type { Message } from "@/lib/contracts/on-disk";

/** The text of `notice` as `t` renders it. */
export function noticeText(notice: Notice, t: TranslateFn): string {
  if (!notice.key || !notice.key.startsWith("notice.msg.") || !hasOwnKey(en, notice.key)) return notice.message;
  return t(notice.key as MessageKey, noticeVars(notice.params ?? {}, t));
}

/** Codes of a model endpoint failing (the banner offers "change model" and "test connection" for them). */
const MODEL_PROBLEMS: ReadonlySet<string> = new Set(["model_error", "model_degraded", "model_server_flag"]);

/** Notices that say some party's work failed, which {@link currentFailure} marks on its message. */
const WORK_FAILURES: ReadonlySet<string> = new Set(["model_error", "model_server_flag", "leader_failed", "agent_failed"]);

const LEVEL_RANK: Record<Notice["level"], number> = { info: 0, warning: 1, error: 2 };

/** The same notices, one per problem. */
export interface NoticeGroup {
  /** What the problem is (stable while it lasts: dismissing hides it until it is reported anew). */
  id: string;
  /** The notice the banner shows: the most serious, the latest among equals. */
  notice: Notice;
  /** Every notice of the problem, in arrival order (its consequences included). */
  members: Notice[];
}

function stableParams(params: Notice["params"]): string {
  if (!params) return "";
  return JSON.stringify(Object.keys(params).sort().map((k) => [k, params[k]]));
}

/** The problem a notice reports: a model's failure by model and reason, anything else by all it says but its time. */
function noticeIdentity(n: Notice): string {
  if (MODEL_PROBLEMS.has(n.code)) {
    const reason = n.code === "model_server_flag" ? `flag:${String(n.params?.flag ?? "")}` : String(n.params?.reason ?? n.code);
    return `model|${String(n.params?.model ?? "")}|${reason}`;
  }
  return `${n.code}|${n.agent_id ?? "leader"}|${n.key ?? ""}|${stableParams(n.params)}|${n.key ? "" : n.message}`;
}

/**
 * Groups `notices` (oldest first) into one per problem, ordered by their latest report. A model's
 * recovery ends its problems (their banners go; the recovery shows). A call cap reached by a
 * party whose model was failing joins that failure.
 */
export function groupNotices(notices: readonly Notice[]): NoticeGroup[] {
  const groups = new Map<string, NoticeGroup>();
  /** The model problem each party (leader: "leader") is in, until its model recovers. */
  const failing = new Map<string, string>();
  const add = (id: string, n: Notice) => {
    const g = groups.get(id);
    if (!g) {
      groups.set(id, { id, notice: n, members: [n] });
      return;
    }
    // Moved to the end: ordered by the latest report.
    groups.delete(id);
    const shown = LEVEL_RANK[n.level] >= LEVEL_RANK[g.notice.level] ? n : g.notice;
    groups.set(id, { id, notice: shown, members: [...g.members, n] });
  };
  for (const n of notices) {
    const party = n.agent_id === null ? "leader" : String(n.agent_id);
    if (n.code === "model_recovered") {
      const model = String(n.params?.model ?? "");
      for (const id of [...groups.keys()]) if (id.startsWith(`model|${model}|`)) groups.delete(id);
      for (const [p, id] of [...failing]) if (id.startsWith(`model|${model}|`)) failing.delete(p);
    }
    const problem = failing.get(party);
    if (n.code === "cap_calls" && problem && groups.has(problem)) {
      add(problem, n);
      continue;
    }
    const id = noticeIdentity(n);
    if (MODEL_PROBLEMS.has(n.code)) failing.set(party, id);
    add(id, n);
  }
  return [...groups.values()];
}

/** The failure a party's work is in now: the message it failed on, and the notice that said so. */
export interface CurrentFailure {
  message_id: string;
  notice: Notice;
}

/**
 * The failure of the leader's (`agentId` null) or one agent's work that still stands: its
 * latest failure notice, when nothing was saved after the message it recorded as last (a retry
 * that got an answer, a new message, ends it). Null when there is none.
 */
export function currentFailure(notices: readonly Notice[], agentId: number | null, messages: readonly Message[]): CurrentFailure | null {
  let latest: Notice | undefined;
  for (const n of notices) if (n.agent_id === agentId && WORK_FAILURES.has(n.code) && n.message_id) latest = n;
  if (!latest?.message_id || !latest.after_message_id) return null;
  if (messages.at(-1)?.message_id !== latest.after_message_id) return null;
  return { message_id: latest.message_id, notice: latest };
}

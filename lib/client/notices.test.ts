import { describe, expect, it } from "vitest";
import { en, type MessageKey } from "@/lib/i18n/dictionaries/en";
import { zhCN } from "@/lib/i18n/dictionaries/zh-cn";
import { makeTranslator, translate } from "@/lib/i18n/translate";
import type { Notice } from "@/lib/contracts/events";
import type { Message } from "@/lib/contracts/on-disk";
import { currentFailure, groupNotices, noticeText } from "./notices";

const notice = (key: string | undefined, params: Notice["params"], message: string): Notice => ({ level: "warning", code: "cap_calls", message, ...(key ? { key } : {}), ...(params ? { params } : {}), agent_id: 3, at: "2026-11-30T10:00:00Z" });

let clock = 0;
/** A notice as the runtime makes it (English text from the key), at a later time than the last one. */
function made(level: Notice["level"], code: string, key: MessageKey, params: Record<string, string | number>, agentId: number | null = null, extra: Partial<Notice> = {}): Notice {
  clock += 1;
  return { level, code, key, params, message: translate("en", key, params), agent_id: agentId, at: new Date(Date.UTC(2026, 10, 30, 10, 0, clock)).toISOString(), ...extra };
}
const DETAIL = 'Could not reach http://127.0.0.1:9/v1 for model "dead" (ECONNREFUSED) after 4 attempts.';
const leaderFailed = (extra: Partial<Notice> = {}) => made("error", "model_error", "notice.msg.leaderModelFailed", { model: "dead", reason: "network", error: DETAIL, cause: "nothing answers at its address" }, null, extra);

describe("notices in the viewer's language", () => {
  it("renders a notice from its key and parameters: English and Chinese", () => {
    const n = notice("notice.msg.agentCallCap", { agent: "Test Engineer_3", cap: 30 }, translate("en", "notice.msg.agentCallCap", { agent: "Test Engineer_3", cap: 30 }));
    expect(noticeText(n, makeTranslator("en"))).toBe("Test Engineer_3 reached 30 model calls for its task and was stopped.");
    expect(noticeText(n, makeTranslator("zh-CN"))).toBe("Test Engineer_3 已达到本任务 30 次模型调用的上限，已被停止。");
  });

  it("falls back to the English text for an unknown or missing key, and never renders another dictionary entry", () => {
    expect(noticeText(notice("notice.msg.fromTheFuture", {}, "A newer server's notice."), makeTranslator("zh-CN"))).toBe("A newer server's notice.");
    expect(noticeText(notice(undefined, undefined, "An old notice."), makeTranslator("zh-CN"))).toBe("An old notice.");
    expect(noticeText(notice("nav.roles", {}, "Not a notice key."), makeTranslator("zh-CN"))).toBe("Not a notice key.");
  });

  it("words a model failure's cause in the page's language, never with the server's English detail", () => {
    const n = leaderFailed();
    const zh = noticeText(n, makeTranslator("zh-CN"));
    expect(zh).toContain("其地址上没有服务应答");
    expect(zh).not.toMatch(/Could not reach|ECONNREFUSED|nothing answers/);
    expect(noticeText(n, makeTranslator("en"))).toContain("failed: nothing answers at its address.");
    const degraded = made("warning", "model_degraded", "notice.msg.modelDegraded", { model: "dead", reason: "timeout", detail: DETAIL, cause: "it did not answer in time" });
    expect(noticeText(degraded, makeTranslator("zh-CN"))).toBe("dead 连续失败：它没有及时应答。");
  });

  it("every notice message has a Chinese text with the same placeholders", () => {
    const keys = (Object.keys(en) as MessageKey[]).filter((k) => k.startsWith("notice.msg.") || k.startsWith("notice.cause."));
    expect(keys.length).toBeGreaterThanOrEqual(28);
    const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const k of keys) {
      expect(zhCN[k], k).not.toBe(en[k]);
      expect(holes(zhCN[k]), k).toEqual(holes(en[k]));
    }
    // A model's failure is worded by its cause: the server's English detail is no part of its text.
    for (const k of ["notice.msg.leaderModelFailed", "notice.msg.agentModelFailed", "notice.msg.leaderNoModel", "notice.msg.agentNoModel", "notice.msg.modelDegraded", "notice.msg.modelDegradedFallback"] as const) {
      expect(en[k], k).toContain("{cause}");
      expect(en[k], k).not.toMatch(/\{(error|detail|reason)\}/);
    }
  });
});

describe("one banner per problem", () => {
  it("shows a failure reported twice (each retry, the call and its fallback) once, and its degraded warning with it", () => {
    const degraded = made("warning", "model_degraded", "notice.msg.modelDegraded", { model: "dead", reason: "network", detail: DETAIL });
    const first = leaderFailed();
    const again = leaderFailed();
    const groups = groupNotices([degraded, first, again]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.notice).toBe(again);
    expect(groups[0]!.notice.level).toBe("error");
    expect(groups[0]!.members).toEqual([degraded, first, again]);
  });

  it("folds a call cap that is only the consequence of a failing model into that failure", () => {
    const failed = leaderFailed();
    const cap = made("warning", "cap_calls", "notice.msg.leaderCallCap", { cap: 30 });
    const groups = groupNotices([failed, cap]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.notice).toBe(failed);
    // Without a failing model, the cap is its own problem.
    expect(groupNotices([cap])).toHaveLength(1);
    const agentFailed = made("error", "model_error", "notice.msg.agentModelFailed", { agent: 2, model: "dead", reason: "network", error: DETAIL }, 2);
    const otherCap = made("warning", "cap_calls", "notice.msg.agentCallCap", { agent: "Coder_5", cap: 30 }, 5);
    expect(groupNotices([agentFailed, otherCap]).map((g) => g.notice.code)).toEqual(["model_error", "cap_calls"]);
  });

  it("keeps distinct problems apart, orders them by their latest report, and not by timestamp alone", () => {
    const a = leaderFailed();
    const b = made("error", "model_error", "notice.msg.leaderModelFailed", { model: "dead", reason: "client", error: "HTTP 401" });
    const stopped1 = made("info", "stopped", "notice.msg.stopped", {});
    const a2 = leaderFailed();
    const stopped2 = made("info", "stopped", "notice.msg.stopped", {});
    const groups = groupNotices([a, b, stopped1, a2, stopped2]);
    expect(groups.map((g) => [g.notice.code, g.members.length])).toEqual([
      ["model_error", 1],
      ["model_error", 2],
      ["stopped", 2],
    ]);
    expect(groups[1]!.notice).toBe(a2);
  });

  it("drops a model's problems once it recovers", () => {
    const failed = leaderFailed();
    const recovered = made("info", "model_recovered", "notice.msg.modelRecovered", { model: "dead" });
    const groups = groupNotices([failed, recovered, made("warning", "cap_calls", "notice.msg.leaderCallCap", { cap: 30 })]);
    expect(groups.map((g) => g.notice.code)).toEqual(["model_recovered", "cap_calls"]);
  });
});

describe("the failed work", () => {
  const person: Message = { role: "user", content: "Say hello", message_id: "msg_user_1", metadata: { message_source: "user" } };
  const answer: Message = { role: "assistant", content: "Hello", message_id: "msg_assistant_2" };

  it("is the message the latest failure was on, while nothing was saved after it", () => {
    const failed = leaderFailed({ message_id: "msg_user_1", after_message_id: "msg_user_1", trace_id: "trace_1" });
    expect(currentFailure([failed], null, [person])).toEqual({ message_id: "msg_user_1", notice: failed });
    // A retry answered: the failure is over.
    expect(currentFailure([failed], null, [person, answer])).toBeNull();
    // Another party's failure is not the leader's.
    expect(currentFailure([failed], 2, [person])).toBeNull();
    // A notice with no message (an older server's) marks nothing.
    expect(currentFailure([leaderFailed()], null, [person])).toBeNull();
  });

  it("follows the latest failure of the party", () => {
    const old = leaderFailed({ message_id: "msg_user_0", after_message_id: "msg_user_0" });
    const latest = leaderFailed({ message_id: "msg_user_1", after_message_id: "msg_user_1" });
    expect(currentFailure([old, latest], null, [person])?.message_id).toBe("msg_user_1");
  });
});

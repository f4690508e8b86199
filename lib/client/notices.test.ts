import { describe, expect, it } from "vitest";
import { en, type MessageKey } from "@/lib/i18n/dictionaries/en";
import { zhCN } from "@/lib/i18n/dictionaries/zh-cn";
import { makeTranslator, translate } from "@/lib/i18n/translate";
import type { Notice } from "@/lib/contracts/events";
import { noticeText } from "./notices";

const notice = (key: string | undefined, params: Notice["params"], message: string): Notice => ({ level: "warning", code: "cap_calls", message, ...(key ? { key } : {}), ...(params ? { params } : {}), agent_id: 3, at: "2026-11-30T10:00:00Z" });

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

  it("every notice message has a Chinese text with the same placeholders", () => {
    const keys = (Object.keys(en) as MessageKey[]).filter((k) => k.startsWith("notice.msg."));
    expect(keys.length).toBeGreaterThanOrEqual(20);
    const holes = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const k of keys) {
      expect(zhCN[k], k).not.toBe(en[k]);
      expect(holes(zhCN[k]), k).toEqual(holes(en[k]));
    }
  });
});

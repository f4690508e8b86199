import { describe, expect, it } from "vitest";
import { KIND_PRIORITY } from "@/lib/redaction";
import { en } from "./dictionaries/en";
import { zhCN } from "./dictionaries/zh-cn";
import { localeFromAcceptLanguage, resolveLocale } from "./locale";
import { translate, translateParts } from "./translate";

describe("resolveLocale", () => {
  it("prefers the cookie over the browser's languages", () => {
    expect(resolveLocale("en", "zh-CN,zh;q=0.9")).toBe("en");
    expect(resolveLocale("zh-CN", "en-US")).toBe("zh-CN");
  });

  it("ignores a cookie that is not a supported locale", () => {
    expect(resolveLocale("fr", "zh-TW")).toBe("zh-CN");
    expect(resolveLocale("../../etc", undefined)).toBe("en");
  });

  it("maps any zh* language to zh-CN and falls back to English", () => {
    expect(localeFromAcceptLanguage("zh-TW,en;q=0.5")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("fr-FR,de;q=0.8")).toBeUndefined();
    expect(resolveLocale(undefined, "fr-FR,de;q=0.8")).toBe("en");
    expect(resolveLocale(undefined, null)).toBe("en");
  });

  it("honours q-values rather than header order", () => {
    expect(localeFromAcceptLanguage("en;q=0.3, zh;q=0.9")).toBe("zh-CN");
    expect(localeFromAcceptLanguage("fr, en;q=0.8, zh;q=0.7")).toBe("en");
    expect(localeFromAcceptLanguage("zh;q=0, en")).toBe("en");
  });
});

describe("dictionaries", () => {
  it("translate every key into Chinese, keeping the same placeholders", () => {
    for (const key of Object.keys(en) as Array<keyof typeof en>) {
      const zh = zhCN[key];
      expect(zh, key).toBeTruthy();
      const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(names(zh), key).toEqual(names(en[key]));
    }
  });

  it("labels every redaction kind the Memory page can show, in English and Chinese", () => {
    for (const kind of KIND_PRIORITY) {
      expect(Object.prototype.hasOwnProperty.call(en, `memory.redactionKind.${kind}`), kind).toBe(true);
      expect(Object.prototype.hasOwnProperty.call(zhCN, `memory.redactionKind.${kind}`), kind).toBe(true);
    }
  });

  it("fills placeholders", () => {
    expect(translate("en", "conv.agentCount", { n: 3 })).toBe("3 agents");
    expect(translate("zh-CN", "conv.showing", { shown: 2, total: 5 })).toBe("显示 2 / 共 5 个");
  });

  it("splits a message at its placeholders, the values apart (to mark them as data)", () => {
    expect(translateParts("zh-CN", "roles.toolMap.mcpTool", { tool: "search", server: "github" })).toEqual([
      { text: "MCP 服务器 " },
      { name: "server", value: "github" },
      { text: " 的工具 " },
      { name: "tool", value: "search" },
    ]);
    // a placeholder without a value stays as text, as translate() leaves it
    expect(translateParts("en", "roles.gateway", {})).toEqual([{ text: "Gateway sources: {list}" }]);
    expect(translateParts("en", "roles.gateway", { list: "crm" }).map((p) => ("text" in p ? p.text : `[${p.value}]`)).join("")).toBe("Gateway sources: [crm]");
  });
});

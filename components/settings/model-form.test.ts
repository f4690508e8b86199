import { describe, expect, it } from "vitest";
import { makeTranslator } from "@/lib/i18n/translate";
import { bodyFromForm, EMPTY_MODEL_FORM, formFromEntry, isStale, refusalsOf } from "./model-form";

describe("the model form", () => {
  it("turns typed text into an entry: numbers parsed, empty fields left out, the typed key as a stored key", () => {
    const built = bodyFromForm({ ...EMPTY_MODEL_FORM, key: "gpt", provider: "openai", base_url: " https://api.openai.com/v1 ", model: "gpt-4o", keyMode: "stored", keyValue: "sk-x", max_concurrency: "3", first_response_ms: "9000", price_output: "10" }, true);
    expect(built).toEqual({
      ok: true,
      key: "gpt",
      entry: { provider: "openai", base_url: "https://api.openai.com/v1", model: "gpt-4o", thinking_style: "none", max_concurrency: 3, timeouts: { first_response_ms: 9000 }, prices: { output: 10 } },
      api_key: { mode: "stored", value: "sk-x" },
    });
  });

  it("names each field's problem with a translation key, in both languages", () => {
    const built = bodyFromForm({ ...EMPTY_MODEL_FORM, key: "bad key", base_url: "ftp://x", model: "", max_concurrency: "0", idle_ms: "abc", price_input: "-1", keyMode: "env", keyEnv: "lower" }, true);
    expect(built.ok).toBe(false);
    if (built.ok) return;
    expect(built.errors).toEqual({
      key: "settings.models.error.key",
      base_url: "settings.models.error.base_url",
      model: "settings.models.error.model",
      max_concurrency: "settings.models.error.max_concurrency",
      timeouts: "settings.models.error.timeouts",
      prices: "settings.models.error.prices",
      keyEnv: "settings.models.error.keyEnv",
    });
    expect(makeTranslator("zh-CN")(built.errors.model!)).toBe("必须填写模型名。");
  });

  it("keeps a stored key unless the person changes it, and shows a variable's name", () => {
    const item = { key: "a", entry: { provider: "openai" as const, model: "m", thinking_style: "none" as const, max_concurrency: 4 }, referenced_by: [] };
    expect(formFromEntry({ ...item, api_key: { source: "stored", set: true } }).keyMode).toBe("keep");
    expect(formFromEntry({ ...item, api_key: { source: "env", env: "A_KEY", set: false } })).toMatchObject({ keyMode: "env", keyEnv: "A_KEY" });
    const kept = bodyFromForm(formFromEntry({ ...item, api_key: { source: "stored", set: true } }), false);
    expect(kept.ok && kept.api_key).toEqual({ mode: "keep" });
  });

  it("reads the server's refusals and the stale-etag conflict", () => {
    expect(refusalsOf([{ path: "key", reason: "referenced", kind: "alias", name: "sonnet", message: "…" }, { path: "x", message: "no reason" }])).toEqual([{ key: "settings.models.refused.referenced.alias", name: "sonnet", path: "key" }]);
    expect(makeTranslator("zh-CN")("settings.models.refused.referenced.alias", { name: "sonnet" })).toBe("别名 sonnet 指向它。");
    expect(isStale({ reason: "stale", etag: "x" })).toBe(true);
    expect(isStale({ reason: "exists" })).toBe(false);
  });
});

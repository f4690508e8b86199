import { describe, expect, it } from "vitest";
import { makeTranslator } from "@/lib/i18n/translate";
import { modelResolutionText } from "./model-resolution";

const list = {
  models: [
    { key: "offline", label: "Offline (built-in) — offline", provider_model: "astrion-offline", offline: true, configured: true, api_key: { source: "none" as const } },
    { key: "qwen", label: "Qwen 3 Max", provider_model: "qwen3-max", offline: false, configured: true, api_key: { source: "env" as const, env: "DASHSCOPE_API_KEY", set: true } },
  ],
  default_key: "qwen",
  aliases: { inherit: "$conversation", sonnet: "$default", opus: "$default", haiku: "$default" },
};

describe("what the role editor says a model resolves to", () => {
  it("names the model an alias stands for, the conversation's model, or warns of a fallback", () => {
    const en = makeTranslator("en");
    expect(modelResolutionText("", list, en)).toEqual({ text: "Runs on the conversation's model.", warning: false });
    expect(modelResolutionText("offline", list, en)).toEqual({ text: "Runs on Offline (built-in) — offline.", warning: false });
    expect(modelResolutionText("sonnet", list, en)).toEqual({ text: '"sonnet" is an alias in models.json: runs on Qwen 3 Max.', warning: false });
    expect(modelResolutionText("inherit", list, en).text).toBe("\"inherit\" is an alias in models.json: runs on the conversation's model.");
    expect(modelResolutionText("gpt-9000", list, en)).toMatchObject({ warning: true });
    expect(modelResolutionText("gpt-9000", list, en).text).toMatch(/^"gpt-9000" is neither a model nor an alias/);
    expect(modelResolutionText("sonnet", list, makeTranslator("zh-CN")).text).toBe("“sonnet”是 models.json 中的别名：使用 Qwen 3 Max 运行。");
  });
});

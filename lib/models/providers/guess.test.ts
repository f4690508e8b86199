import { describe, expect, it } from "vitest";
import { guessFromLikelyPort, guessFromModelList, guessFromUrl, resolveWithoutServer } from "./guess";

describe("guessing a provider profile", () => {
  it("reads hosted APIs from the host and sure local servers from the port", () => {
    expect(guessFromUrl("https://api.openai.com/v1")).toEqual({ profile: "openai", source: "base_url", detail: "api.openai.com" });
    expect(guessFromUrl("https://api.deepseek.com/v1")?.profile).toBe("deepseek");
    expect(guessFromUrl("https://dashscope.aliyuncs.com/compatible-mode/v1")?.profile).toBe("dashscope");
    expect(guessFromUrl("https://dashscope-intl.aliyuncs.com/compatible-mode/v1")?.profile).toBe("dashscope");
    expect(guessFromUrl("http://127.0.0.1:11434/v1")).toEqual({ profile: "ollama", source: "base_url", detail: "port 11434" });
    expect(guessFromUrl("http://localhost:1234/v1")?.profile).toBe("lmstudio");
    // An entry without base_url calls OpenAI.
    expect(guessFromUrl(undefined)?.profile).toBe("openai");
    // Shared default ports decide nothing before the server is asked.
    expect(guessFromUrl("http://127.0.0.1:8000/v1")).toBeNull();
    expect(guessFromLikelyPort("http://127.0.0.1:8000/v1")?.profile).toBe("vllm");
    expect(guessFromLikelyPort("http://127.0.0.1:8080/v1")?.profile).toBe("llamacpp");
    expect(guessFromUrl("http://gpu-box.lan:9000/v1")).toBeNull();
  });

  it("reads the server's own name from its /v1/models answer", () => {
    const list = (owned_by: string) => ({ object: "list", data: [{ id: "m", object: "model", owned_by }] });
    expect(guessFromModelList(list("vllm"))).toEqual({ profile: "vllm", source: "server", detail: 'owned_by "vllm"' });
    expect(guessFromModelList(list("llamacpp"))?.profile).toBe("llamacpp");
    expect(guessFromModelList(list("library"))?.profile).toBe("ollama");
    expect(guessFromModelList(list("organization_owner"))?.profile).toBe("lmstudio");
    expect(guessFromModelList(list("openai"))).toBeNull();
    expect(guessFromModelList({ data: "nope" })).toBeNull();
    expect(guessFromModelList(null)).toBeNull();
  });

  it("takes a named profile over any guess, and guesses for openai-compatible", () => {
    expect(resolveWithoutServer({ provider: "vllm", base_url: "https://api.openai.com/v1" })).toEqual({ profile: "vllm", source: "named", detail: "" });
    expect(resolveWithoutServer({ provider: "openai-compatible", base_url: "https://api.deepseek.com/v1" })?.profile).toBe("deepseek");
    expect(resolveWithoutServer({ provider: "openai-compatible", base_url: "http://10.0.0.2:8000/v1" })).toBeNull();
  });
});

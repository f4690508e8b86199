import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { DoctorReport } from "@/lib/contracts/http";
import { I18nProvider, type Locale } from "@/lib/i18n";
import { ConnectionDoctor, DoctorResult } from "./connection-doctor";

const report: DoctorReport = {
  model_key: "vllm",
  provider: { profile: "vllm", source: "named", detail: "" },
  lines: [
    { check: "server", status: "green", message: "doctor.server.ok", params: { url: "http://127.0.0.1:8000/v1" }, text: "The server at http://127.0.0.1:8000/v1 answers." },
    {
      check: "tool_call",
      status: "amber",
      message: "doctor.tool.auto_refused",
      params: { server: "vLLM", flag: "--enable-auto-tool-choice --tool-call-parser <parser>" },
      text: "…",
      said: '"auto" tool choice requires --enable-auto-tool-choice',
    },
    { check: "stream", status: "red", message: "doctor.stream.no_stream", params: {}, text: "The server did not stream its answer." },
  ],
  skipped: ["usage"],
  ok: false,
  ms: 120,
};

// The provider's children are required in its props type; createElement passes them as its third argument.
const Provider = I18nProvider as (props: { locale: Locale; children?: ReactNode }) => ReactNode;
const render = (locale: Locale, node: ReturnType<typeof createElement>) => renderToStaticMarkup(createElement(Provider, { locale }, node));

describe("ConnectionDoctor", () => {
  it("shows each line with its mark and status, its sentence in the person's language, what the server said and what was not checked", () => {
    const html = render("en", createElement(DoctorResult, { report }));
    expect(html).toContain('data-check="tool_call" data-status="amber"');
    expect(html).toContain("Restart vLLM with --enable-auto-tool-choice --tool-call-parser &lt;parser&gt;.");
    expect(html).toContain("The server said: &quot;auto&quot; tool choice requires --enable-auto-tool-choice");
    expect(html).toContain('aria-label="does not work"');
    expect(html).toContain("Not checked because of the red line above: Usage reported.");
    expect(html).toContain("Problems found (120 ms, provider vllm).");
    const zh = render("zh-CN", createElement(DoctorResult, { report }));
    expect(zh).toContain("请用 --enable-auto-tool-choice --tool-call-parser &lt;parser&gt; 重启 vLLM。");
    expect(zh).toContain("因上面的红色行而未检查：用量上报。");
  });

  it("is a Test connection button for its model key before it has run", () => {
    const html = render("en", createElement(QueryClientProvider, { client: new QueryClient() }, createElement(ConnectionDoctor, { modelKey: "vllm" })));
    expect(html).toContain('data-model-key="vllm"');
    expect(html).toMatch(/<button[^>]*data-testid="doctor-run"[^>]*>Test connection<\/button>/);
    expect(html).not.toContain("doctor-result");
  });
});

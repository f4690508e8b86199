import { describe, expect, it } from "vitest";
import { parseConversationFolder } from "./bundle";
import { renderConversationMarkdown } from "./markdown";
import { fenced, htmlInline, inline } from "./markdown-text";
import { FIXTURE_ID, fixtureFolder, type FixtureOptions } from "@/test/helpers/export/folder";

function report(opts: FixtureOptions = {}): string {
  return renderConversationMarkdown(parseConversationFolder(opts.id ?? FIXTURE_ID, fixtureFolder(opts), { strict: true }), { now: new Date("2026-07-12T10:00:00Z"), appVersion: "1.2.3" });
}

/** The lines of `md` outside fenced code blocks (what Markdown reads as structure). */
function structure(md: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.split("\n")) {
    const bare = line.replace(/^(> ?)+/, "").replace(/^ {2}/, "");
    const open = /^(`{3,})/.exec(bare);
    if (fence) {
      if (open && bare.trim() === fence) fence = null;
      continue;
    }
    if (open) {
      fence = open[1]!;
      continue;
    }
    out.push(line);
  }
  expect(fence).toBeNull(); // every fence closed
  return out;
}

describe("renderConversationMarkdown", () => {
  it("gives cached input tokens and the cost recorded with the calls, per agent and per model, a dash where calls had no prices", () => {
    const b = (calls: number, priced: number, cost?: number) => ({ prompt_tokens: 1_000 * calls, cached_tokens: 400 * calls, completion_tokens: 100 * calls, total_tokens: 1_100 * calls, calls, priced_calls: priced, ...(cost === undefined ? {} : { cost_usd: cost }) });
    const md = report({
      tokenStatistics: { total: b(3, 2, 0.0054), by_agent: { leader: b(2, 1, 0.003), agent_3: b(1, 1, 0.0024) }, by_model: { gpt: b(2, 2, 0.0054), offline: b(1, 0) } },
    });
    expect(md).toContain("|  | calls | prompt tokens | cached prompt tokens | completion tokens | total tokens | cost (USD) |");
    expect(md).toContain("| Total | 3 | 3,000 | 1,200 | 300 | 3,300 | $0.0054 |");
    expect(md).toContain("| Researcher\\_3 | 1 | 1,000 | 400 | 100 | 1,100 | $0.0024 |");
    expect(md).toContain("| offline | 1 | 1,000 | 400 | 100 | 1,100 | — |");
    expect(md).toContain("1 of 3 calls had no prices and are not in it.");
    expect(md).toContain("Tokens: 1,100 in 1 call(s), cost $0.0024.");
  });

  it("has the facts, token usage, timeline summary, the leader thread and each agent folded", () => {
    const md = report();
    expect(md).toMatch(/^# Landing page review\n/);
    expect(md).toContain(`| Conversation | ${FIXTURE_ID.replace(/_/g, "\\_")} |`);
    expect(md).toContain("## Token usage");
    expect(md).toContain("| Total | 5 | 50 | 0 | 5 | 55 |");
    expect(md).toContain("| Researcher\\_3 | 3 | 30 | 0 | 3 | 33 |");
    // Without prices: tokens only, no cost anywhere.
    expect(md).not.toMatch(/cost|\$/i);
    expect(md).toContain("## Timeline summary");
    expect(md).toMatch(/3 records in 1 trace\(s\), from 2026-07-11T13:00:00\.000Z to 2026-07-11T13:00:09\.000Z/);
    expect(md).toContain("| create\\_sub\\_agent | 1 | ok 1 |");
    expect(md).toMatch(/Notices \(1\):\n\n- .* report · refused · agent:3/);
    expect(md).toContain("## Team Leader thread");
    expect(md).toContain("Review the landing page");
    expect(md).toContain("SUMMARY: the page is fine.");
    expect(md).toContain("- Tool call `create_sub_agent`");
    // The inter-agent report is a quoted card, not raw seed text.
    expect(md).toContain("> **Completion report** from Researcher\\_3 · id out\\_r\\_001");
    expect(md).toContain("> The page has 3 sections.");
    expect(md).not.toContain("来自 Researcher_3 的任务完成汇报");
    // Hidden messages (system prompts) stay out.
    expect(md).not.toContain("BASE PROMPT");
    expect(md).not.toContain("ROLE PROMPT");
    // The agent's work, folded.
    expect(md).toMatch(/<details>\n<summary>Researcher_3 · researcher · completed · 5 messages<\/summary>\n\nTask: Map the project\n\nTokens: 33 in 3 call\(s\)\./);
    const agentPart = md.slice(md.indexOf("<details>"), md.indexOf("</details>"));
    expect(agentPart).toContain("> **Task assignment** from Team Leader · id task\\_001");
    expect(agentPart).toContain("- Tool call `read_file`");
    expect(agentPart).toContain("README BODY");
    expect(agentPart).toContain("AGENT THOUGHT: three sections");
  });

  it("keeps hostile message text from changing the report's structure", () => {
    const hostile = [
      "</details>",
      "</summary><script>alert(1)</script>",
      "```",
      "## Sub-agents",
      "````js",
      "| fake | table |",
      "<details><summary>fake agent</summary>",
    ].join("\n");
    const md = report({ userText: hostile, finalText: "~~~\n`````\n# Injected heading" });
    const lines = structure(md);
    expect(lines.filter((l) => l === "</details>")).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("<details>"))).toHaveLength(1);
    expect(lines.filter((l) => l === "## Sub-agents")).toHaveLength(1);
    expect(lines.some((l) => l.includes("<script>") || l.startsWith("# Injected"))).toBe(false);
    // The text itself is all there, inside a fence longer than any run of backticks in it.
    expect(md).toContain(hostile);
    expect(md).toMatch(/\n``````text\n~~~\n`````\n# Injected heading\n``````\n/);
  });

  it("escapes a hostile title, agent name and task in headings, tables and <summary>", () => {
    const md = report({ title: "# x </details> | * [a](javascript:1)\n## second line" });
    expect(md.split("\n")[0]).toBe("# \\# x \\</details\\> \\| \\* \\[a\\](javascript:1) \\#\\# second line");
  });
});

describe("markdown text helpers", () => {
  it("fences with one backtick more than the longest run inside", () => {
    expect(fenced("a ``` b ```` c")).toBe("`````text\na ``` b ```` c\n`````\n");
    expect(fenced("plain")).toBe("```text\nplain\n```\n");
  });

  it("makes inline and HTML text inert", () => {
    expect(inline("a\n# b | `c` <d> [e] *f* _g_ ~h~ &i !j")).toBe("a \\# b \\| \\`c\\` \\<d\\> \\[e\\] \\*f\\* \\_g\\_ \\~h\\~ \\&i \\!j");
    expect(htmlInline('</summary><b a="1">x</b> & \'y\'')).toBe("&#60;/summary&#62;&#60;b a=&#34;1&#34;&#62;x&#60;/b&#62; &#38; &#39;y&#39;");
    expect(inline("x".repeat(10), 5)).toBe("xxxx…");
  });
});

import { describe, expect, it } from "vitest";
import { formatAgentMessage } from "@/lib/contracts/messages";
import type { Message } from "@/lib/contracts/on-disk";
import { collectConclusions, distillAnswerJsonSchema, distillByRules, distillMessages, parseDistillAnswer, subjectOf, type DistillContext } from ".";

const ctx: DistillContext = { conversation_id: "conv_20261130_120000_001", project_path: "/work/shop" };
const agents = [
  { agent_id: 1, role_id: "code-reviewer", display_name: "Code Reviewer_1" },
  { agent_id: 2, role_id: "tester", display_name: "Tester_2" },
];

const person = (id: string, content: string): Message => ({ role: "user", content, message_id: id, metadata: { message_source: "user" } });
const leader = (id: string, content: string | null, calls: Array<{ name: string; args: Record<string, unknown> }> = []): Message => ({
  role: "assistant",
  content,
  message_id: id,
  metadata: { message_source: "leader" },
  ...(calls.length ? { tool_calls: calls.map((c, i) => ({ id: `call_${id}_${i}`, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.args) } })) } : {}),
});
const report = (id: string, agentId: number, body: string): Message => ({
  role: "user",
  content: formatAgentMessage("report", agents[agentId - 1]!.display_name, `out_x_00${agentId}`, body),
  message_id: id,
  metadata: { message_source: "sub_agent", agent_id: agentId },
});
const ask = (id: string, agentId: number, qid: string, question: string): Message => ({
  role: "user",
  content: formatAgentMessage("message", agents[agentId - 1]!.display_name, qid, question),
  message_id: id,
  metadata: { message_source: "sub_agent", agent_id: agentId },
});
const tool = (id: string): Message => ({ role: "tool", content: '{"ok":true}', tool_call_id: "x", message_id: id });

const history: Message[] = [
  person("m1", "Review the payment service. I prefer concise answers with code examples."),
  leader("m2", null, [{ name: "create_sub_agent", args: { role_id: "code-reviewer", task: "review" } }]),
  tool("m3"),
  ask("m4", 1, "ask_cr_001", "Should the v1 order API stay supported?"),
  ask("m5", 2, "ask_t_001", "Which database does staging use?"),
  leader("m6", null, [{ name: "answer_question", args: { question_id: "ask_t_001", answer: "Postgres" } }]),
  tool("m7"),
  report("m8", 1, "Findings:\n- The order API `POST /v1/orders` is deprecated in favour of `/v2/orders`.\n- Refunds over 10,000 CNY need a second approval.\n\nNext steps:\n- Migrate the mobile client.\n\nCONCLUSION: `PaymentGateway.charge()` retries three times before failing."),
  report("m9", 2, "- Payment callback tests do not cover concurrency yet.\n- Contact the owner at ops.lead@example.com for staging keys."),
  leader("m10", "## Team summary\nKey findings:\n- The order API `POST /v1/orders` is deprecated in favour of `/v2/orders`.\n\nCONCLUSION: Team for \"review\": Code Reviewer_1 (code-reviewer, agent 1)"),
];

describe("collectConclusions", () => {
  it("reads reports, markers, preferences, the final summary and unanswered questions with their message ids", () => {
    const cs = collectConclusions(history, { agents });
    const by = (text: string) => cs.find((c) => c.text.includes(text));
    expect(by("concise answers")).toMatchObject({ source: "person", message_ids: ["m1"] });
    expect(by("Should the v1 order API")).toMatchObject({ source: "question", open: true, message_ids: ["m4"] });
    // answered by the leader: not open
    expect(by("Which database")).toBeUndefined();
    // a finding repeated in the final summary keeps its place and cites both messages
    expect(by("is deprecated in favour")).toMatchObject({ source: "report", role_id: "code-reviewer", message_ids: ["m8", "m10"] });
    expect(by("PaymentGateway.charge()")).toMatchObject({ source: "marker", message_ids: ["m8"] });
    // advice is not a finding; the team line names this conversation's agents
    expect(by("Migrate the mobile client")).toBeUndefined();
    expect(cs.some((c) => c.text.includes("Team for"))).toBe(false);
    expect(cs.map((c) => c.id)).toEqual(cs.map((_, i) => `c${i + 1}`));
  });

  it("reads only the messages from `from` on", () => {
    const cs = collectConclusions(history, { agents, from: 8 });
    expect(cs.every((c) => c.message_ids.every((id) => ["m9", "m10"].includes(id)))).toBe(true);
    expect(cs.some((c) => c.text.includes("concurrency"))).toBe(true);
    expect(cs.some((c) => c.text.includes("concise"))).toBe(false);
  });

  it("with pending questions given, a question is open exactly when it is still pending (a person may have answered it)", () => {
    const cs = collectConclusions(history, { agents, pendingQuestions: new Set(["ask_t_001"]) });
    expect(cs.some((c) => c.text.includes("Which database"))).toBe(true);
    expect(cs.some((c) => c.text.includes("v1 order API stay"))).toBe(false);
  });

  it("reads Chinese: 结论 lines, preferences, open lists and sentence findings", () => {
    const zh: Message[] = [
      person("z1", "请审查支付服务。我希望回答简洁，并附上代码示例。"),
      report("z2", 1, "订单接口 `/v1/orders` 已废弃，应改用 `/v2/orders`。退款超过一万元需要二次审批。\n\n结论：支付回调使用 `notify_url` 字段"),
      leader("z3", "## 团队总结\n主要发现：\n- 订单接口已废弃。\n\n未解决问题：\n- 支付回调的并发测试尚未覆盖。\n\n待确认：生产环境的限流阈值"),
    ];
    const cs = collectConclusions(zh, { agents });
    expect(cs.find((c) => c.text.includes("我希望回答简洁"))).toMatchObject({ source: "person" });
    expect(cs.find((c) => c.text.includes("notify_url"))).toMatchObject({ source: "marker", message_ids: ["z2"] });
    expect(cs.find((c) => c.text.startsWith("退款超过一万元"))).toMatchObject({ source: "report" });
    expect(cs.find((c) => c.text.includes("并发测试"))).toMatchObject({ open: true, message_ids: ["z3"] });
    expect(cs.find((c) => c.text.includes("限流阈值"))).toMatchObject({ open: true });
  });
});

describe("collectConclusions: conclusions, not the flow", () => {
  // A report shaped like a tool-using team's: findings mixed with tallies and narration, a section
  // of the work done, advice. The wording is not any one team's: the rules read shapes.
  const body = [
    "**Reviewer report** — goal: \"Review the parser\"",
    "",
    "**Findings**",
    "- Searched the code for `eval`: 3 matches — `lib/parse.js:12`, `lib/scan.js:40`.",
    "- Read `lib/parse.js` and `lib/scan.js`.",
    "- Defined in the files read: `parse` (`lib/parse.js:3`), `scan` (`lib/scan.js:1`).",
    "- I changed no files: this report is the analysis to act on.",
    "- Same findings as above.",
    "- Step 4 of 12: the step budget is half used.",
    "- `lib/parse.js:12`",
    "- The parser builds regular expressions with `new RegExp()` from user input without escaping.",
    "- Test setup: test command `mocha`; no tests for the scanner.",
    "",
    "**What I looked at**",
    "- The tokenizer table in `lib/constants.js` maps every glob character to a regex fragment.",
    "",
    "**Recommendations**",
    "- Escape user input before building a RegExp.",
  ].join("\n");

  it("keeps a report's real findings and drops tallies, narration, self-references, repetitions, step notes, bare references and the work-done section", () => {
    const cs = collectConclusions([report("r1", 1, body)], { agents });
    expect(cs.map((c) => c.text)).toEqual(["The parser builds regular expressions with `new RegExp()` from user input without escaping.", "Test setup: test command `mocha`; no tests for the scanner."]);
  });

  it("trivia does not take a finding's place: a report of many trivial items still yields its real finding", () => {
    const noisy = ["**Findings**", ...Array.from({ length: 12 }, (_, i) => `- Search for "term${i}": ${i + 2} matches.`), "- Refunds over 10,000 CNY need a second approval."].join("\n");
    expect(collectConclusions([report("r2", 1, noisy)], { agents }).map((c) => c.text)).toEqual(["Refunds over 10,000 CNY need a second approval."]);
  });

  it("drops the trivia of a leader's final summary in prose and in Chinese", () => {
    const cs = collectConclusions([
      leader("s1", "2 reports came back from the team. Same findings as above. The ledger import must finish before reconciliation starts."),
      person("s2", "再看一下。"),
      leader("s3", "## 团队总结\n- 发现与上文相同。\n- 搜索“退款”：12 处匹配。\n- 读取了 `src/refund.ts`。\n- 退款超过一万元需要二次审批。"),
    ]);
    expect(cs.map((c) => c.text)).toEqual(["The ledger import must finish before reconciliation starts.", "退款超过一万元需要二次审批。"]);
  });

  it("keeps a person's stated conclusions and decisions (English and Chinese), each once, with their message", () => {
    const cs = collectConclusions([
      person("p1", "Review the parser. Findings to keep: the scanner is only used for brace expansion. We decided to keep Node 14 support. Remember that I prefer short answers."),
      person("p2", "结论：解析器不支持扩展 glob。我们决定下个版本移除 `posix.js`。我更喜欢中文回答。"),
    ]);
    const bySource = cs.map((c) => [c.source, c.text, c.message_ids]);
    expect(bySource).toEqual([
      ["stated", "the scanner is only used for brace expansion.", ["p1"]],
      ["stated", "We decided to keep Node 14 support.", ["p1"]],
      ["stated", "I prefer short answers.", ["p1"]],
      ["stated", "解析器不支持扩展 glob。", ["p2"]],
      ["stated", "我们决定下个版本移除 `posix.js`。", ["p2"]],
      ["person", "我更喜欢中文回答。", ["p2"]],
    ]);
  });
});

describe("distillByRules", () => {
  const candidates = distillByRules(collectConclusions(history, { agents }), ctx);
  const by = (text: string) => candidates.find((c) => c.statement.includes(text))!;

  it("gives each conclusion a kind, a subject, a level by the documented rule, a confidence and its sources", () => {
    expect(by("concise answers")).toMatchObject({ kind: "preference", level: "project", project_path: "/work/shop", grant: [], confidence: 0.85 });
    expect(by("Should the v1 order API")).toMatchObject({ kind: "open_issue", level: "project", confidence: 0.6 });
    expect(by("concurrency yet")).toMatchObject({ kind: "open_issue", level: "project" });
    // technical (names an API): public; a business rule: project
    expect(by("is deprecated in favour")).toMatchObject({ kind: "fact", level: "public", subject: "POST /v1/orders", confidence: 0.75, source: { conversation_id: ctx.conversation_id, message_ids: ["m8", "m10"] } });
    expect(by("Refunds over")).toMatchObject({ kind: "fact", level: "project", subject: "Refunds over 10,000 CNY" });
    expect(by("PaymentGateway.charge()")).toMatchObject({ kind: "fact", level: "public", confidence: 0.9 });
  });

  it("makes text with sensitive content restricted, granted to the reporting role and the leader only", () => {
    expect(by("ops.lead@example.com")).toMatchObject({ level: "restricted", grant: ["leader", "tester"] });
  });

  it("without a project folder nothing is project-level (it could never be read)", () => {
    const none = distillByRules(collectConclusions(history, { agents }), { ...ctx, project_path: "" });
    expect(none.every((c) => c.project_path === null && c.level !== "project")).toBe(true);
    expect(none.find((c) => c.statement.includes("ops.lead"))!.level).toBe("restricted");
  });

  it("a configured account-id pattern makes a statement restricted", () => {
    const cs = collectConclusions([report("a1", 1, "- Customer account ACC-12345678 has a stuck refund in the ledger.")], { agents });
    expect(distillByRules(cs, ctx)[0]!.level).toBe("project");
    expect(distillByRules(cs, { ...ctx, accountPatterns: ["ACC-{digit:8}"] })[0]).toMatchObject({ level: "restricted", grant: ["leader", "code-reviewer"] });
  });

  it("a failed report's findings get a low confidence", () => {
    const cs = collectConclusions([report("f1", 1, "[failed] The staging deploy script `deploy.sh` exits early.")], { agents });
    expect(distillByRules(cs, ctx)[0]).toMatchObject({ confidence: 0.4, kind: "fact" });
  });
});

describe("subjectOf", () => {
  it("takes an identifier's code span, the words before the verb, or the Chinese head, in the statement's case", () => {
    expect(subjectOf("The `OrderService` is deprecated.")).toBe("OrderService");
    expect(subjectOf("Config lives in src/config/app.yaml now")).toBe("Config");
    expect(subjectOf("The payment service's order API is deprecated")).toBe("payment service's order API");
    expect(subjectOf("支付回调测试尚未覆盖并发")).toBe("支付回调测试");
  });

  it("is a meaningful phrase of the statement: a specific label, past a decision's opening, never a bare file reference", () => {
    expect(subjectOf("Test setup: test command `mocha`; no tests for the scanner.")).toBe("Test setup");
    expect(subjectOf("Note: `parse()` throws on empty input.")).toBe("parse()");
    expect(subjectOf("The README (`README.md`) says picomatch has no dependencies.")).toBe("README");
    expect(subjectOf("No risky patterns (eval, raw HTML) in the 8 files read.")).toBe("No risky patterns");
    expect(subjectOf("We decided to keep Node 14 support.")).toBe("keep Node 14 support");
    expect(subjectOf("我们决定保留 REST 接口。")).toBe("保留 REST 接口");
    expect(subjectOf("`README.md:39` holds the install steps.")).toBe("holds the install steps");
    expect(subjectOf("`lib/scan.js`: starts the scan from the first glob character.")).toBe("starts the scan");
  });
});

describe("the model path", () => {
  const cs = collectConclusions(history, { agents });
  const id = (text: string) => cs.find((c) => c.text.includes(text))!.id;

  it("prompts with the conclusions and a JSON Schema generated from the zod schema", () => {
    const [system, user] = distillMessages(cs, "Payment review");
    expect(system!.content).toContain(distillAnswerJsonSchema());
    expect(JSON.parse(distillAnswerJsonSchema())).toMatchObject({ type: "object", required: ["entries"] });
    expect(user!.content).toContain(`[${id("concise")}] (person) I prefer concise answers`);
  });

  it("reads a valid answer, sources mapped to message ids, level only raised by the model", () => {
    const answer = JSON.stringify({
      entries: [
        { kind: "fact", statement: "POST /v1/orders is deprecated; use /v2/orders.", subject: "Order API", level: "project", confidence: 0.8, sources: [id("deprecated")] },
        { kind: "fact", statement: "Staging keys come from the ops lead.", subject: "staging keys", level: "public", confidence: 0.5, sources: [id("ops.lead")] },
      ],
    });
    const r = parseDistillAnswer("```json\n" + answer + "\n```", cs, ctx);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.candidates[0]).toMatchObject({ level: "project", subject: "Order API", source: { message_ids: ["m8", "m10"] }, confidence: 0.8 });
    // the cited conclusion held an e-mail address: restricted whatever the model said
    expect(r.candidates[1]).toMatchObject({ level: "restricted", grant: ["leader", "tester"] });
  });

  it("keeps the model's subject in its case, and replaces a bare file reference with a phrase of the statement", () => {
    const answer = JSON.stringify({
      entries: [
        { kind: "fact", statement: "The README documents every matcher option.", subject: "readme.md:39", level: "public", confidence: 0.7, sources: [id("deprecated")] },
        { kind: "fact", statement: "Refunds over 10,000 CNY need a second approval.", subject: "Refund approvals", level: "project", confidence: 0.7, sources: [id("Refunds over")] },
      ],
    });
    const r = parseDistillAnswer(answer, cs, ctx);
    expect(r.ok && r.candidates.map((c) => c.subject)).toEqual(["README", "Refund approvals"]);
  });

  it("tells the model which conclusions a person stated", () => {
    const stated = collectConclusions([person("p1", "Findings to keep: the v1 order API stays until June.")]);
    expect(distillMessages(stated, "Orders")[1]!.content).toContain("[c1] (stated by person) the v1 order API stays until June.");
  });

  it("refuses an invalid answer: not JSON, wrong shape, unknown sources", () => {
    expect(parseDistillAnswer("no idea", cs, ctx)).toMatchObject({ ok: false });
    expect(parseDistillAnswer('{"entries":[{"kind":"rumour","statement":"x","subject":"x","level":"public","confidence":1,"sources":["c1"]}]}', cs, ctx)).toMatchObject({ ok: false, error: expect.stringContaining("kind") });
    expect(parseDistillAnswer('{"entries":[{"kind":"fact","statement":"x","subject":"x","level":"public","confidence":1,"sources":["c999"]}]}', cs, ctx)).toMatchObject({ ok: false, error: expect.stringContaining("c999") });
  });
});

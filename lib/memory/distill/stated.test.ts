import { describe, expect, it } from "vitest";
import { statedConclusions } from "./stated";

describe("statedConclusions", () => {
  it("keeps what follows an English lead-in, one conclusion per `;` part", () => {
    expect(statedConclusions("Review the glob code. Findings to keep: picomatch compiles every glob to a regular expression before matching.")).toEqual([
      "picomatch compiles every glob to a regular expression before matching.",
    ]);
    expect(statedConclusions("Remember that the ledger import runs at 02:00 UTC; refunds are settled the next day.")).toEqual(["the ledger import runs at 02:00 UTC", "refunds are settled the next day."]);
    expect(statedConclusions("Keep in mind: the staging database is shared with QA.")).toEqual(["the staging database is shared with QA."]);
    expect(statedConclusions("Our conclusion is that the v1 API stays until June.")).toEqual(["the v1 API stays until June."]);
    expect(statedConclusions("**Conclusion:** Node 18 support ends with 3.0.")).toEqual(["Node 18 support ends with 3.0."]);
  });

  it("keeps a decision and a wish to remember whole", () => {
    expect(statedConclusions("We decided to keep the REST API and drop GraphQL.")).toEqual(["We decided to keep the REST API and drop GraphQL."]);
    expect(statedConclusions("We've agreed that releases happen on Tuesdays.")).toEqual(["We've agreed that releases happen on Tuesdays."]);
    expect(statedConclusions("Remember to run the linter before every commit.")).toEqual(["Remember to run the linter before every commit."]);
  });

  it("reads the list under a lead-in alone on its line", () => {
    const text = "Please look at the parser.\n\nFindings to keep:\n- The parser is hand-written, no generator.\n- Errors carry line and column.\n\nThanks!";
    expect(statedConclusions(text)).toEqual(["The parser is hand-written, no generator.", "Errors carry line and column."]);
  });

  it("reads Chinese lead-ins and decisions", () => {
    expect(statedConclusions("研究一下 picomatch。结论：picomatch 在匹配前会把每个 glob 编译成正则表达式。")).toEqual(["picomatch 在匹配前会把每个 glob 编译成正则表达式。"]);
    expect(statedConclusions("请记住：对账任务每天凌晨两点运行。")).toEqual(["对账任务每天凌晨两点运行。"]);
    expect(statedConclusions("记住退款必须经过二次审批。")).toEqual(["退款必须经过二次审批。"]);
    expect(statedConclusions("我们决定保留 REST 接口，不再使用 GraphQL。")).toEqual(["我们决定保留 REST 接口，不再使用 GraphQL。"]);
    expect(statedConclusions("要保留的发现：\n- 解析器是手写的。\n- 错误信息带有行号。")).toEqual(["解析器是手写的。", "错误信息带有行号。"]);
  });

  it("finds nothing in a request without a lead-in", () => {
    expect(statedConclusions("Review the authentication code for security issues and keep the report short.")).toEqual([]);
    expect(statedConclusions("Note the failing tests and fix them.")).toEqual([]);
    expect(statedConclusions("发现问题后请修复。")).toEqual([]);
    expect(statedConclusions("帮我审查支付服务的代码。")).toEqual([]);
  });
});

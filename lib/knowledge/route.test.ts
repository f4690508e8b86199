import { describe, expect, it } from "vitest";
import { routeKnowledge } from "./route";

/** Labelled tasks: true = needs precise facts (offer search_knowledge), false = explanatory or other work. */
const CORPUS: Array<[string, boolean]> = [
  // precise facts, English
  ["Where is the function that computes refunds defined?", true],
  ["Which file holds the retry policy for the payment client?", true],
  ["What is the default value of the request timeout?", true],
  ["Find the definition of the OrderStatus enum and list its members.", true],
  ["What fields does the order API response contain?", true],
  ["Look up the environment variable that sets the log level.", true],
  ["What port does the server listen on by default?", true],
  ["Which config option turns off telemetry?", true],
  ["What is the maximum upload size the API accepts?", true],
  ["Where's the code that validates e-mail addresses?", true],
  ["Tell me the signature of createEmbedder and its return type.", true],
  ["Which function parses the models.json file?", true],
  ["What error code does the gateway return for a missing token?", true],
  ["What does the amount_cents field of an order mean exactly?", true],
  ["In which module is the rate limiter declared?", true],
  ["Locate the constant that caps the queue length.", true],
  ["What is the value of MAX_RETRIES in the client?", true],
  ["Explain where the session token is stored and which file sets its lifetime.", true],
  // precise facts, Chinese
  ["订单接口的字段定义是什么？", true],
  ["退款函数在哪个文件里？", true],
  ["请求超时的默认值是多少？", true],
  ["日志级别由哪个环境变量控制？", true],
  ["配置项 retry_delay_ms 在哪里定义？", true],
  ["查询支付回调接口的参数和返回类型。", true],
  ["队列长度的上限是哪个常量？", true],
  ["createEmbedder 函数的签名是什么？", true],
  // explanatory, English
  ["Explain the architecture of the payment service.", false],
  ["Summarize what this project does.", false],
  ["Give me an overview of the modules and how they fit together.", false],
  ["Why does the engine keep a step log? Explain the design.", false],
  ["Write a plain-language explanation of the order API for new users.", false],
  ["Review the refund code and suggest improvements.", false],
  ["Describe how the retry logic works, in simple terms.", false],
  ["Walk me through the request lifecycle.", false],
  ["Refactor the logger to use structured fields? Propose a design first.", false],
  ["Draft release notes for version 2.", false],
  ["Compare the two caching strategies and give your opinion.", false],
  // explanatory, Chinese
  ["解释一下支付服务的架构。", false],
  ["总结这个项目是做什么的。", false],
  ["给这个接口写一个通俗解释。", false],
  ["介绍一下消息总线的设计思路。", false],
  ["为什么要用三层上下文切片？讲解原理。", false],
  ["审查退款模块的代码并提出优化建议。", false],
  ["对比两种缓存方案的优缺点。", false],
  // neither: other work
  ["Add a unit test for the refund calculation.", false],
  ["Rename the variable foo to bar in src/app.ts.", false],
  ["运行测试并报告结果。", false],
];

describe("knowledge routing", () => {
  it("has a labelled corpus of at least 40 tasks in English and Chinese", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40);
    expect(CORPUS.filter(([t]) => /[\u4e00-\u9fff]/.test(t)).length).toBeGreaterThanOrEqual(15);
  });

  it.each(CORPUS)("%s → offered: %s", (task, offered) => {
    expect(routeKnowledge(task).offer).toBe(offered);
  });

  it("names the cues that decided", () => {
    expect(routeKnowledge("What is the default value of the timeout?")).toMatchObject({ offer: true, precise: expect.arrayContaining(["default value"]), explanatory: [] });
    expect(routeKnowledge("解释一下架构")).toMatchObject({ offer: false, precise: [], explanatory: expect.arrayContaining(["解释", "架构"]) });
  });

  it("reads only the start of a huge task", () => {
    const t = `${"x ".repeat(100_000)} where is the function defined`;
    expect(routeKnowledge(t).offer).toBe(false);
  });
});

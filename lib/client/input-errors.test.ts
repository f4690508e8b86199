import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ApprovalBodySchema, CreateConversationBodySchema, PostMessageBodySchema } from "@/lib/contracts/http";
import { RoleFieldsSchema } from "@/lib/roles/schema";
import { makeTranslator } from "@/lib/i18n/translate";
import { ApiError, bodyOf } from "./api";
import { formErrorText, inputErrorText, issueText, maxLengthOf, showsCounter, tooLongText } from "./input-errors";

const en = makeTranslator("en");
const zh = makeTranslator("zh-CN");

describe("a text over its limit, in the page's language", () => {
  it("refuses a body in the browser with the server's coded issue, never a raw zod error", () => {
    let caught: unknown;
    try {
      bodyOf(PostMessageBodySchema, { content: "x".repeat(200_000) });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    const error = caught as ApiError;
    expect(error.code).toBe("validation_failed");
    expect(error.fieldIssues).toEqual([{ path: "content", message: "at most 100,000 characters", code: "too_long", limit: 100_000 }]);
    expect(error.message).not.toMatch(/too_big|origin|\[\{/);
    expect(inputErrorText(error, en, "en", "goal")).toBe("The goal is too long: at most 100,000 characters.");
    expect(inputErrorText(error, zh, "zh-CN", "goal")).toBe("目标太长：最多 100,000 个字符。");
    expect(inputErrorText(error, en, "en", "message")).toBe("The message is too long: at most 100,000 characters.");
    expect(bodyOf(PostMessageBodySchema, { content: " hi " })).toEqual({ content: "hi" });
  });

  it("words the server's answer the same way (a validation issue, a body too large, no server)", () => {
    const server = new ApiError(400, "validation_failed", "The request body is not valid: content: at most 100,000 characters", [{ path: "content", message: "at most 100,000 characters", code: "too_long", limit: 100_000 }]);
    expect(inputErrorText(server, zh, "zh-CN", "message")).toBe("消息太长：最多 100,000 个字符。");
    expect(inputErrorText(new ApiError(413, "payload_too_large", "The request body is larger than 524288 bytes."), zh, "zh-CN", "goal")).toBe("目标太长，无法发送。");
    expect(inputErrorText(new ApiError(0, "network_error", "The server could not be reached."), zh, "zh-CN", "goal")).toBe("无法连接服务器。Astrion 还在运行吗？");
    expect(inputErrorText(new ApiError(409, "conflict", "Archived."), en, "en", "message")).toBe("Archived.");
    // The 503 of a forwarded command whose holder did not answer (issue 31), in the page's language.
    expect(inputErrorText(new ApiError(503, "unavailable", "The instance running this conversation did not answer; try again."), zh, "zh-CN", "message")).toBe("运行此对话的实例没有响应，请重试。");
    expect(issueText({ message: "at most 200 characters", code: "too_long", limit: 200 }, zh, "zh-CN", "title")).toBe("标题太长：最多 200 个字符。");
    expect(issueText({ message: "a project folder is required", code: "too_short", limit: 1 }, zh, "zh-CN", "projectPath")).toBe("a project folder is required");
    expect(tooLongText(en, "en", "description", 4000)).toBe("The description is too long: at most 4,000 characters.");
  });

  it("reads each limit from the schema the server parses with, and shows the counter from 80% of it", () => {
    expect(maxLengthOf(PostMessageBodySchema.shape.content)).toBe(100_000);
    expect(maxLengthOf(CreateConversationBodySchema.shape.title)).toBe(200);
    expect(maxLengthOf(RoleFieldsSchema.shape.description)).toBe(4000);
    expect(maxLengthOf(PostMessageBodySchema.shape.author)).toBe(80);
    expect(showsCounter(79_999, 100_000)).toBe(false);
    expect(showsCounter(80_000, 100_000)).toBe(true);
    expect(showsCounter(120_000, 100_000)).toBe(true);
    expect(showsCounter(10, null)).toBe(false);
  });

  it("names the approval card's field over its limit (the pattern, the reason), never the server's English", () => {
    const fields = { reason: "reason", pattern: "pattern" } as const;
    const refusal = (body: z.input<typeof ApprovalBodySchema>): unknown => {
      try {
        bodyOf(ApprovalBodySchema, body);
      } catch (error) {
        return error;
      }
      throw new Error("not refused");
    };
    const pattern = refusal({ tool_call_id: "call_1", decision: "approve", always: true, pattern: "npm ".repeat(200) });
    expect(formErrorText(pattern, zh, "zh-CN", fields, "reason")).toBe("模式太长：最多 500 个字符。");
    expect(formErrorText(pattern, en, "en", fields, "reason")).toBe("The pattern is too long: at most 500 characters.");
    const reason = refusal({ tool_call_id: "call_1", decision: "deny", reason: "no ".repeat(1000) });
    expect(formErrorText(reason, zh, "zh-CN", fields, "reason")).toBe("原因太长：最多 2,000 个字符。");
    // The server's answer is worded the same way; other failures as for the fallback field.
    const server = new ApiError(400, "validation_failed", "The request body is not valid: pattern: at most 500 characters", [{ path: "pattern", message: "at most 500 characters", code: "too_long", limit: 500 }]);
    expect(formErrorText(server, zh, "zh-CN", fields, "reason")).toBe("模式太长：最多 500 个字符。");
    expect(formErrorText(new ApiError(0, "network_error", "The server could not be reached."), zh, "zh-CN", fields, "reason")).toBe("无法连接服务器。Astrion 还在运行吗？");
  });
});

import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { buildThreadItems, summarizeToolCall, toolResultError } from "./thread-items";

const seedLeader: Message[] = [
  { role: "system", content: "You are the Team Leader", metadata: { visibility: "hidden" } },
  { role: "user", content: "帮我设计一个前端页面", message_id: "msg_user_001", metadata: { message_source: "user", visibility: "chat", starts_work: true } },
  {
    role: "assistant",
    content: "我来安排 UI Operator 处理这个任务...",
    message_id: "msg_assistant_001",
    tool_calls: [{ id: "call_1", type: "function", function: { name: "create_sub_agent", arguments: '{"role_id":"ui-operator","task":"设计配色"}' } }],
  },
  { role: "tool", content: '{"agent_id":1}', tool_call_id: "call_1", message_id: "msg_tool_001" },
  {
    role: "user",
    content: "来自 UI Operator_1 的任务完成汇报\nid: out_uio_001\n\n\n\n我完成了前端配色的设计...\n\n",
    message_id: "msg_auto_001",
    metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: 1 },
  },
  {
    role: "user",
    content: "来自 UI Operator_1 的消息\nid: ask_uio_001\n\n\n\nWhich page?\n\n",
    message_id: "msg_auto_002",
    metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: 1 },
  },
  { role: "user", content: "internal", message_id: "msg_hidden", metadata: { visibility: "hidden" } },
];

describe("buildThreadItems", () => {
  it("drops system and hidden messages, folds tool results into their call and parses seed texts into cards", () => {
    const items = buildThreadItems(seedLeader);
    expect(items.map((i) => (i.kind === "agent-card" ? `card:${i.variant}` : i.kind))).toEqual([
      "person",
      "assistant",
      "card:report",
      "card:question",
    ]);
    const assistant = items[1];
    expect(assistant?.kind === "assistant" && assistant.toolResults.get("call_1")?.content).toBe('{"agent_id":1}');
    const report = items[2];
    expect(report?.kind === "agent-card" && report.parsed).toMatchObject({ sender: "UI Operator_1", id: "out_uio_001", body: "我完成了前端配色的设计..." });
  });

  it("keeps a tool result whose call is not shown", () => {
    const items = buildThreadItems([{ role: "tool", content: "x", tool_call_id: "gone" }]);
    expect(items.map((i) => i.kind)).toEqual(["tool"]);
  });
});

describe("toolResultError", () => {
  it("reads {error} results and ignores everything else", () => {
    expect(toolResultError('{"error":"unknown role"}')).toBe("unknown role");
    expect(toolResultError('{"error":{"code":"x","message":"path escapes the project"}}')).toBe("path escapes the project");
    expect(toolResultError('{"ok":true}')).toBeNull();
    expect(toolResultError("plain text")).toBeNull();
    expect(toolResultError(null)).toBeNull();
  });
});

describe("summarizeToolCall", () => {
  it("shows the role and the task of create_sub_agent", () => {
    expect(summarizeToolCall("create_sub_agent", '{"task":"Review","role_id":"code-reviewer"}').keyArgs).toEqual([
      { name: "role_id", value: "code-reviewer" },
      { name: "task", value: "Review" },
    ]);
  });

  it("falls back to the first arguments of an unknown tool and survives broken JSON", () => {
    expect(summarizeToolCall("custom", '{"a":1,"b":"two","c":3}').keyArgs.map((a) => a.name)).toEqual(["a", "b"]);
    expect(summarizeToolCall("read_file", '{"path":')).toEqual({ args: null, keyArgs: [] });
  });
});

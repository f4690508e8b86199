import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { leaderCallsSinceRequest } from "./leader-calls";

const person = (content: string): Message => ({ role: "user", content, metadata: { message_source: "user", visibility: "chat", starts_work: true } });
const report = (): Message => ({ role: "user", content: "来自 X_1 的任务完成汇报\nid: out_x_001\n\nok", metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false } });
const call = (): Message => ({ role: "assistant", content: "…", metadata: { message_source: "leader", visibility: "chat", starts_work: false } });
const tool = (): Message => ({ role: "tool", content: "{}", tool_call_id: "c" });

describe("leaderCallsSinceRequest", () => {
  it("counts the leader's calls since the person's latest message, through reports and tool results", () => {
    expect(leaderCallsSinceRequest([])).toBe(0);
    expect(leaderCallsSinceRequest([person("a"), call(), tool(), call(), report(), call()])).toBe(3);
    expect(leaderCallsSinceRequest([person("a"), call(), call(), person("b")])).toBe(0);
    expect(leaderCallsSinceRequest([person("a"), call(), person("b"), call()])).toBe(1);
  });
});

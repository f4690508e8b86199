import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { callAnsweredAt, endsWithResultOf, needsModelCall, unansweredToolCalls } from "./tool-calls";

const call = (id: string, name = "read_file") => ({ id, type: "function" as const, function: { name, arguments: "{}" } });
const asks = (...calls: ReturnType<typeof call>[]): Message => ({ role: "assistant", content: null, tool_calls: calls });
const result = (id: string, content = '{"ok":true}'): Message => ({ role: "tool", tool_call_id: id, content });
const user: Message = { role: "user", content: "go" };
const says: Message = { role: "assistant", content: "done" };

describe("tool calls matched to their results", () => {
  it("lists the last assistant message's calls that have no result yet", () => {
    expect(unansweredToolCalls([user, asks(call("a"), call("b")), result("a")]).map((c) => c.id)).toEqual(["b"]);
    expect(unansweredToolCalls([user, asks(call("a")), result("a")])).toEqual([]);
    expect(unansweredToolCalls([user, says])).toEqual([]);
    expect(unansweredToolCalls([])).toEqual([]);
    // Only the last assistant message counts: an older call left unanswered is history.
    expect(unansweredToolCalls([asks(call("old")), user, asks(call("new"))]).map((c) => c.id)).toEqual(["new"]);
  });

  it("finds the call a result answers through the run of results before it", () => {
    const t = [user, asks(call("a", "list_files"), call("b", "report_to_leader")), result("a"), result("b")];
    expect(callAnsweredAt(t, 3)?.function.name).toBe("report_to_leader");
    expect(callAnsweredAt(t, 2)?.function.name).toBe("list_files");
    expect(callAnsweredAt(t, 1)).toBeUndefined();
    expect(callAnsweredAt([user, result("x")], 1)).toBeUndefined();
    expect(callAnsweredAt([asks(call("a")), user, result("a")], 2)).toBeUndefined();
  });

  it("says whether a transcript ends with a successful result of one tool", () => {
    const t = [user, asks(call("r", "report_to_leader")), result("r")];
    expect(endsWithResultOf(t, "report_to_leader")).toBe(true);
    expect(endsWithResultOf(t, "read_file")).toBe(false);
    expect(endsWithResultOf([user, asks(call("r", "report_to_leader")), result("r", '{"error":"busy"}')], "report_to_leader")).toBe(false);
    expect(endsWithResultOf([...t, user], "report_to_leader")).toBe(false);
  });

  it("calls for the model after new input once every call is answered", () => {
    expect(needsModelCall([user])).toBe(true);
    expect(needsModelCall([user, asks(call("a")), result("a")])).toBe(true);
    expect(needsModelCall([user, asks(call("a"), call("b")), result("a")])).toBe(false);
    expect(needsModelCall([user, says])).toBe(false);
    expect(needsModelCall([])).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { localTimestamp } from "@/lib/store/time";
import { changedFrom, textParts } from "./batch";
import { indexedMessages, MAX_INDEXED_CHARS, messageTime } from "./rows";
import { SearchQuerySchema } from "@/lib/contracts/search";
import { filterTagGroups, tagsOf } from "./tags";

describe("indexedMessages", () => {
  const messages: Message[] = [
    { role: "system", content: "base prompt", message_id: "s" },
    { role: "user", content: "hello", message_id: "u", metadata: { visibility: "chat" } },
    { role: "user", content: "hidden note", message_id: "h", metadata: { visibility: "hidden" } },
    { role: "assistant", content: null, message_id: "a", tool_calls: [{ id: "c1", type: "function", function: { name: "create_sub_agent", arguments: JSON.stringify({ role_id: "researcher", task: "survey the archive", n: 3 }) } }] },
    { role: "tool", content: "", message_id: "t", tool_call_id: "c1" },
    { role: "assistant", content: "broken args", message_id: "b", tool_calls: [{ id: "c2", type: "function", function: { name: "x", arguments: "{not json" } }] },
  ];

  it("indexes what the chat shows, with tool-call argument text, at their positions", () => {
    const rows = indexedMessages(messages, 0, "2026-01-01T00:00:00");
    expect(rows.map((r) => [r.idx, r.messageId, r.role])).toEqual([[1, "u", "user"], [3, "a", "assistant"], [5, "b", "assistant"]]);
    expect(rows[1]!.text).toBe("researcher\nsurvey the archive\n3");
    expect(rows[2]!.text).toBe("broken args\n{not json");
    expect(indexedMessages(messages, 4, "x").map((r) => r.idx)).toEqual([5]);
  });

  it("indexes a message's beginning only, however long it is, never splitting a surrogate pair", () => {
    const huge: Message = { role: "assistant", content: null, message_id: "w", tool_calls: [{ id: "c", type: "function", function: { name: "write_file", arguments: JSON.stringify({ path: "big.txt", content: "a. ".repeat(400_000) }) } }] };
    const [row] = indexedMessages([huge], 0, "x");
    expect(row!.text.length).toBe(MAX_INDEXED_CHARS);
    expect(row!.text.startsWith("big.txt\na. a. ")).toBe(true);
    const emoji = "x".repeat(MAX_INDEXED_CHARS - 1) + "😀".repeat(10);
    const [cut] = indexedMessages([{ role: "user", content: emoji, message_id: "e" }], 0, "x");
    expect(cut!.text).toBe("x".repeat(MAX_INDEXED_CHARS - 1));
  });
});

describe("messageTime", () => {
  it("takes an explicit time, else the engine id's time, else the fallback", () => {
    expect(messageTime({ role: "user", content: "", created_at: "2026-03-04T05:06:07.123" } as Message, "f")).toBe("2026-03-04T05:06:07");
    const at = new Date(2026, 6, 11, 21, 0, 5);
    expect(messageTime({ role: "user", content: "", message_id: `msg_assistant_${at.getTime().toString(36)}abc123` }, "f")).toBe(localTimestamp(at));
    expect(messageTime({ role: "user", content: "", message_id: "msg_assistant_crafted" }, "2025-01-01T00:00:00")).toBe("2025-01-01T00:00:00");
    expect(messageTime({ role: "user", content: "" }, "fallback")).toBe("fallback");
  });
});

describe("changedFrom (watermarks)", () => {
  const file = (ids: string[], updated = "t2") => ({ messages: ids.map((id) => ({ role: "user" as const, content: id, message_id: id })), created_at: "t0", updated_at: updated });
  it("says nothing changed, what was appended, or that everything must be read again", () => {
    expect(changedFrom(undefined, file(["a"]))).toBe(0);
    expect(changedFrom({ count: 2, last_id: "b", updated_at: "t2" }, file(["a", "b"]))).toBeNull();
    expect(changedFrom({ count: 2, last_id: "b", updated_at: "t1" }, file(["a", "b", "c"]))).toBe(2);
    expect(changedFrom({ count: 0, last_id: null, updated_at: "t1" }, file(["a"]))).toBe(0);
    // Same count, another time: edited in place.
    expect(changedFrom({ count: 2, last_id: "b", updated_at: "t1" }, file(["a", "b"]))).toBe(0);
    // The indexed last message is no longer where it was.
    expect(changedFrom({ count: 2, last_id: "x", updated_at: "t1" }, file(["a", "b", "c"]))).toBe(0);
    expect(changedFrom({ count: 3, last_id: "c", updated_at: "t1" }, file(["a"]))).toBe(0);
  });
});

describe("SearchQuerySchema", () => {
  it("accepts the filters, treats empty ones as absent, and refuses bad values", () => {
    expect(SearchQuerySchema.parse({ q: " atomic ", agent: "leader", role: "", status: "all", from: "2026-01-01", to: "2026-01-31T10:00", limit: "5" })).toMatchObject({ q: "atomic", agent: "leader", role: undefined, limit: 5 });
    expect(SearchQuerySchema.parse({ q: "x", agent: "12" }).agent).toBe(12);
    for (const bad of [{ q: " " }, { q: "x", agent: "0" }, { q: "x", from: "2026-02-30x" }, { q: "x", limit: "0" }, { q: "x", cursor: "-1" }, { q: "x", model: "../etc" }, { q: "x", role: "a b" }, { q: "x", from: "2026-02-02", to: "2026-02-01" }]) {
      expect(SearchQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it("turns filters into the tag tokens messages carry", () => {
    const tags = tagsOf({ status: "archived", agentId: 7, roleId: "ui-operator", modelKey: "qwen3-max", messageRole: "tool", createdAt: "2026-07-11T21:00:00" }).split(" ");
    for (const group of filterTagGroups({ status: "archived", agent: 7, role: "ui-operator", model: "qwen3-max", message_role: "tool", from: "2026-06-15", to: "2026-08-01" })) {
      expect(group.some((t) => tags.includes(t))).toBe(true);
    }
    expect(filterTagGroups({ status: "all" })).toEqual([]);
    // A wide date range is left to SQL.
    expect(filterTagGroups({ from: "2026-01-01", to: "2026-12-31" })).toEqual([]);
    expect(filterTagGroups({ from: "2026-01-31", to: "2026-03-01" })).toEqual([["d202601", "d202602", "d202603"]]);
    expect(filterTagGroups({ agent: "leader" })).toEqual([["a0"]]);
    expect(tags.every((t) => /^[a-z0-9]+$/.test(t))).toBe(true);
  });
});

describe("textParts", () => {
  const m = (idx: number, chars: number) => ({ idx, messageId: `m${idx}`, role: "user" as const, createdAt: "2026-01-01T00:00:00", text: "x".repeat(chars) });

  it("cuts a file's messages into runs of at most the budget, in order, a long message alone", () => {
    const messages = [m(0, 10), m(1, 20), m(2, 5), m(3, 100), m(4, 1), m(5, 30)];
    const parts = textParts(messages, 40);
    expect(parts.map((p) => p.map((x) => x.idx))).toEqual([[0, 1, 2], [3], [4, 5]]);
    expect(parts.flat()).toEqual(messages);
    for (const part of parts) expect(part.length === 1 || part.reduce((n, x) => n + x.text.length, 0) <= 40).toBe(true);
  });

  it("always gives one part, empty when there is nothing to write (the watermark still moves)", () => {
    expect(textParts([], 40)).toEqual([[]]);
  });
});

import { describe, expect, it } from "vitest";
import { applyContradiction, applyDuplicate, decideMerge, shapeOf, stricterLevel, subjectKey } from "./merge";
import type { MemoryEntry } from "./schema";

function entry(over: Partial<MemoryEntry>): MemoryEntry {
  return {
    id: `mem_${Math.random().toString(36).slice(2, 10)}`,
    kind: "fact",
    statement: "",
    subject: "",
    project_path: "/p",
    level: "project",
    grant: [],
    source: { conversation_id: "conv_20260101_000000_001", message_ids: ["m1"] },
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    confidence: 0.6,
    history: [],
    redactions: [],
    author: "distiller",
    ...over,
  };
}
const cand = (statement: string, subject: string, over: Partial<MemoryEntry> = {}) => ({ kind: "fact" as const, statement, subject, project_path: "/p", ...over });

describe("decideMerge", () => {
  const api = entry({ statement: "The payment service's order API is deprecated.", subject: "payment order API" });

  it("finds a duplicate however the statement is cased, punctuated or spaced", () => {
    expect(decideMerge(cand("the payment service's ORDER api is deprecated", "Payment-Order API"), [api])).toEqual({ action: "duplicate", target: api });
    expect(decideMerge(cand("The payment service’s order API is deprecated!!", "other subject"), [api]).action).toBe("duplicate");
  });

  it("finds a Chinese duplicate (full-width punctuation, spaces)", () => {
    const zh = entry({ statement: "支付服务的订单接口已废弃。", subject: "订单接口" });
    expect(decideMerge(cand("支付服务的 订单接口 已废弃", "订单接口"), [zh]).action).toBe("duplicate");
  });

  it("sees a negation on the same subject as a contradiction, not a duplicate", () => {
    expect(decideMerge(cand("The payment service's order API is not deprecated.", "payment order API"), [api])).toEqual({ action: "contradiction", target: api });
    const zh = entry({ statement: "订单接口已废弃", subject: "订单接口" });
    expect(decideMerge(cand("订单接口没有废弃", "订单接口"), [zh]).action).toBe("contradiction");
  });

  it("sees a changed value on the same subject as a contradiction", () => {
    const t = entry({ statement: "The callback timeout is 30 seconds", subject: "callback timeout" });
    expect(decideMerge(cand("The callback timeout is 60 seconds", "callback timeout"), [t]).action).toBe("contradiction");
    const zh = entry({ statement: "回调超时时间是30秒", subject: "回调超时" });
    expect(decideMerge(cand("回调超时时间是60秒", "回调超时"), [zh]).action).toBe("contradiction");
  });

  it("takes a new preference on the same subject as replacing the old one", () => {
    const p = entry({ kind: "preference", statement: "wants concise answers with code examples", subject: "answer style" });
    expect(decideMerge(cand("prefers long detailed explanations", "answer style", { kind: "preference" }), [p]).action).toBe("contradiction");
  });

  it("adds an unrelated statement, another kind, another project, or a subject-less one", () => {
    expect(decideMerge(cand("Callback tests do not cover concurrency yet", "payment order API"), [api]).action).toBe("add");
    expect(decideMerge(cand("The payment service's order API is deprecated.", "payment order API", { kind: "open_issue" }), [api]).action).toBe("add");
    expect(decideMerge(cand("The payment service's order API is deprecated.", "payment order API", { project_path: "/q" }), [api]).action).toBe("add");
    expect(decideMerge(cand("The order API is not deprecated", ""), [entry({ statement: "The order API is deprecated", subject: "" })]).action).toBe("add");
  });

  it("does not take 非常 (very) for a negation", () => {
    const zh = entry({ statement: "这个用户非常喜欢简洁的回答", subject: "回答风格", kind: "preference" });
    expect(decideMerge(cand("这个用户喜欢简洁的回答", "回答风格", { kind: "preference" }), [zh]).action).toBe("duplicate");
    expect(shapeOf("非常好").negated).toBe(false);
    expect(shapeOf("不好").negated).toBe(true);
    expect(shapeOf("it isn't done").negated).toBe(true);
  });

  it("prefers the closest duplicate and the most recent contradicted entry", () => {
    const a = entry({ statement: "order API deprecated since v2 release notes", subject: "s" });
    const b = entry({ statement: "order API deprecated since v2", subject: "s" });
    expect(decideMerge(cand("Order API deprecated since v2", "s"), [a, b])).toEqual({ action: "duplicate", target: b });
    const old = entry({ statement: "the build uses node 18", subject: "build", updated_at: "2026-01-01T00:00:00Z" });
    const newer = entry({ statement: "the build uses node 20", subject: "build", updated_at: "2026-02-01T00:00:00Z" });
    expect(decideMerge(cand("the build uses node 22", "build"), [old, newer])).toEqual({ action: "contradiction", target: newer });
  });
});

describe("applying a merge", () => {
  const older = entry({ statement: "A is deprecated", subject: "A", confidence: 0.5 });
  const input = { kind: "fact" as const, statement: "A is not deprecated", subject: "A", project_path: "/p", level: "public" as const, grant: [], source: { conversation_id: "conv_2", message_ids: ["m9"] }, confidence: 0.8, redactions: [] };

  it("corroborates a duplicate and keeps the previous version in history", () => {
    const next = applyDuplicate(older, { ...input, statement: "A is deprecated", source: { conversation_id: older.source.conversation_id, message_ids: ["m2"] } }, "2026-03-01T00:00:00Z");
    expect(next.id).toBe(older.id);
    expect(next.statement).toBe("A is deprecated");
    expect(next.confidence).toBe(0.9);
    expect(next.source.message_ids).toEqual(["m1", "m2"]);
    expect(next.level).toBe("project"); // never widened
    expect(next.updated_at).toBe("2026-03-01T00:00:00Z");
    expect(next.history).toEqual([{ at: "2026-03-01T00:00:00Z", statement: "A is deprecated", subject: "A", level: "project", confidence: 0.5, source: older.source, reason: "duplicate" }]);
  });

  it("replaces the statement on a contradiction and records the old one", () => {
    const next = applyContradiction(older, input, "2026-03-01T00:00:00Z");
    expect(next.statement).toBe("A is not deprecated");
    expect(next.source).toEqual(input.source);
    expect(next.created_at).toBe(older.created_at);
    expect(next.history.at(-1)).toMatchObject({ statement: "A is deprecated", reason: "contradiction" });
  });

  it("keeps the stricter level and folds subjects", () => {
    expect(stricterLevel("public", "restricted")).toBe("restricted");
    expect(stricterLevel("project", "public")).toBe("project");
    expect(subjectKey("Payment  Service!")).toBe(subjectKey("payment-service"));
  });
});

describe("history", () => {
  it("keeps the newest MAX_HISTORY versions", async () => {
    const { MAX_HISTORY, withHistory, historyItem } = await import("./merge");
    let history: MemoryEntry["history"] = [];
    const e = entry({ statement: "s" });
    for (let i = 0; i < MAX_HISTORY + 5; i++) history = withHistory(history, historyItem({ ...e, statement: `v${i}` }, "duplicate", `t${i}`));
    expect(history).toHaveLength(MAX_HISTORY);
    expect(history[0]!.statement).toBe("v5");
    expect(history.at(-1)!.statement).toBe(`v${MAX_HISTORY + 4}`);
  });
});

import { describe, expect, it } from "vitest";
import { AstrionError, ValidationError } from "./errors";
import {
  agentIdOfParty,
  agentParty,
  assertCodeOnlyType,
  CodeOnlyTypeError,
  ENVELOPE_TYPES,
  EnvelopeSchema,
  follow,
  idempotencyKey,
  newMessageId,
  newTraceId,
  newTurnId,
  parseEnvelope,
  replyTo,
  startTrace,
  type Envelope,
} from "./envelope";

const NOW = new Date("2026-07-11T13:00:00.000Z");

/** The envelope printed in seed 003 §3.1, with its values quoted. */
const SEED_ENVELOPE = {
  message_id: "msg_9f2c3a1e",
  trace_id: "trace_7a8f21c4",
  turn_id: "turn_5b1d23e9",
  parent_turn_id: "turn_a12b34cd",
  type: "request",
  from: "agent-coordinator",
  to: "agent-code-review",
  priority: "normal",
  created_at: "2025-06-18T10:24:00Z",
  payload: { task: "analyze_impact", target_module: "payment_service", context_slice: ["接口变更点", "关联测试文件"] },
  meta: { idempotency_key: "key_88b7f0e2", model_hint: "local-mini", deadline_ms: 15000 },
};

describe("ids", () => {
  it("have the seed's prefixes and random hex, and do not repeat", () => {
    const traces = new Set(Array.from({ length: 1000 }, newTraceId));
    expect(traces.size).toBe(1000);
    for (const id of traces) expect(id).toMatch(/^trace_[0-9a-f]{16}$/);
    expect(newTurnId()).toMatch(/^turn_[0-9a-f]{16}$/);
    expect(newMessageId()).toMatch(/^msg_[0-9a-f]{16}$/);
  });

  it("idempotency keys are stable per trace, action and target", () => {
    expect(idempotencyKey("trace_1", "write_file", "src/a.ts")).toBe("trace_1:write_file:src/a.ts");
    expect(idempotencyKey("trace_1", "create_sub_agent", 3)).toBe(idempotencyKey("trace_1", "create_sub_agent", 3));
    expect(idempotencyKey("trace_1", "create_sub_agent", 3)).not.toBe(idempotencyKey("trace_2", "create_sub_agent", 3));
  });

  it("agent addresses round trip and other parties are not agents", () => {
    expect(agentParty(3)).toBe("agent:3");
    expect(agentIdOfParty("agent:12")).toBe(12);
    expect(agentIdOfParty("leader")).toBeNull();
    expect(agentIdOfParty("agent:0")).toBeNull();
    expect(agentIdOfParty("agent:3x")).toBeNull();
    expect(() => agentParty(0)).toThrow(RangeError);
    expect(() => agentParty(1.5)).toThrow(RangeError);
  });
});

describe("EnvelopeSchema", () => {
  it("accepts the seed's example envelope", () => {
    expect(parseEnvelope(SEED_ENVELOPE)).toEqual(SEED_ENVELOPE);
  });

  it("keeps fields it does not know (a newer writer's)", () => {
    const parsed = parseEnvelope({ ...SEED_ENVELOPE, hop_count: 2, meta: { ...SEED_ENVELOPE.meta, tier: 1 } });
    expect(parsed).toMatchObject({ hop_count: 2, meta: { tier: 1 } });
  });

  it("accepts a root envelope (parent null) and empty meta", () => {
    expect(() => parseEnvelope({ ...SEED_ENVELOPE, parent_turn_id: null, meta: {} })).not.toThrow();
  });

  const bad: Array<[string, Record<string, unknown>]> = [
    ["unknown type", { type: "command" }],
    ["unknown priority", { priority: "critical" }],
    ["local time without zone", { created_at: "2025-06-18T10:24:00" }],
    ["an offset instead of UTC", { created_at: "2025-06-18T10:24:00+08:00" }],
    ["payload that is an array", { payload: [1, 2] }],
    ["payload that is a string", { payload: "hi" }],
    ["trace id without prefix", { trace_id: "7a8f21c4" }],
    ["turn id with a slash", { turn_id: "turn_../../x" }],
    ["message id with the wrong prefix", { message_id: "trace_9f2c3a1e" }],
    ["parent that is not a turn id", { parent_turn_id: "msg_1" }],
    ["empty sender", { from: "" }],
    ["recipient with a space", { to: "team leader" }],
    ["negative deadline", { meta: { deadline_ms: -1 } }],
    ["fractional deadline", { meta: { deadline_ms: 1.5 } }],
  ];
  it.each(bad)("refuses %s", (_name, patch) => {
    expect(() => parseEnvelope({ ...SEED_ENVELOPE, ...patch })).toThrow(ValidationError);
  });

  it.each(["message_id", "trace_id", "turn_id", "parent_turn_id", "type", "from", "to", "priority", "created_at", "payload", "meta"])(
    "requires %s",
    (field) => {
      const copy: Record<string, unknown> = { ...SEED_ENVELOPE };
      delete copy[field];
      const result = EnvelopeSchema.safeParse(copy);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual([field]);
    },
  );
});

describe("startTrace / replyTo / follow", () => {
  it("a user message starts a new trace with no parent", () => {
    const env = startTrace("user", "leader", { content: "帮我设计一个前端页面" }, { now: NOW });
    expect(env).toMatchObject({
      type: "request",
      from: "user",
      to: "leader",
      parent_turn_id: null,
      priority: "normal",
      created_at: "2026-07-11T13:00:00.000Z",
      payload: { content: "帮我设计一个前端页面" },
      meta: {},
    });
    expect(EnvelopeSchema.parse(env)).toEqual(env);
    const other = startTrace("user", "leader", {});
    expect(other.trace_id).not.toBe(env.trace_id);
  });

  it("a reply keeps the trace, points at its request and goes back to the asker", () => {
    const request = startTrace("user", "leader", { content: "go" });
    const reply = replyTo(request, { content: "done" }, { priority: "high" });
    expect(reply.type).toBe("reply");
    expect(reply.trace_id).toBe(request.trace_id);
    expect(reply.parent_turn_id).toBe(request.turn_id);
    expect(reply.turn_id).not.toBe(request.turn_id);
    expect(reply.message_id).not.toBe(request.message_id);
    expect([reply.from, reply.to]).toEqual(["leader", "user"]);
    expect(reply.priority).toBe("high");
    const redirected = replyTo(request, {}, { from: "agent:1", to: "leader" });
    expect([redirected.from, redirected.to]).toEqual(["agent:1", "leader"]);
  });

  it("a chain of causes keeps one trace and links each step to its cause", () => {
    const root = startTrace("user", "leader", { content: "go" });
    const task = follow(root, { type: "request", from: "leader", to: "agent:1", payload: { task: "t" }, producer: "model" });
    const status = follow(task, { type: "event", from: "system", to: "all", payload: { status: "running" }, producer: "code" });
    const report = replyTo(task, { summary: "ok" }, { meta: { idempotency_key: "k" } });
    const chain: Envelope[] = [root, task, status, report];
    expect(new Set(chain.map((e) => e.trace_id)).size).toBe(1);
    expect(task.parent_turn_id).toBe(root.turn_id);
    expect(status.parent_turn_id).toBe(task.turn_id);
    expect(report.parent_turn_id).toBe(task.turn_id);
    expect(report.meta.idempotency_key).toBe("k");
    expect(new Set(chain.map((e) => e.turn_id)).size).toBe(4);
  });

  it("refuses invalid parties instead of building a bad envelope", () => {
    expect(() => startTrace("", "leader", {})).toThrow(ValidationError);
    const root = startTrace("user", "leader", {});
    expect(() => follow(root, { type: "request", from: "leader", to: "a b", payload: {}, producer: "code" })).toThrow(ValidationError);
  });
});

describe("code-only envelope types", () => {
  const table = ENVELOPE_TYPES.flatMap((type) =>
    (["code", "model"] as const).map((producer) => ({
      type,
      producer,
      allowed: producer === "code" || type === "request" || type === "reply",
    })),
  );

  it.each(table)("$type produced by $producer → allowed: $allowed", ({ type, producer, allowed }) => {
    if (allowed) {
      expect(() => assertCodeOnlyType(type, producer)).not.toThrow();
    } else {
      let caught: unknown;
      try {
        assertCodeOnlyType(type, producer);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(CodeOnlyTypeError);
      expect(caught).toBeInstanceOf(AstrionError);
      expect((caught as AstrionError).code).toBe("forbidden");
      expect((caught as AstrionError).status).toBe(403);
    }
  });

  it("follow() enforces it, so a model can never emit control, event or broadcast", () => {
    const root = startTrace("user", "leader", {});
    for (const type of ["broadcast", "event", "control"] as const) {
      expect(() => follow(root, { type, from: "leader", to: "all", payload: {}, producer: "model" })).toThrow(CodeOnlyTypeError);
      expect(follow(root, { type, from: "system", to: "all", payload: {}, producer: "code" }).type).toBe(type);
    }
  });
});

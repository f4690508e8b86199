import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { AgentMetadataSchema, ConversationMetadataSchema, LeaderMessagesFileSchema, type AgentMetadata, type ConversationMetadata } from "@/lib/contracts/on-disk";
import { checked, checkedChange } from "./step-records";

const conv: ConversationMetadata = {
  id: "conv_20260711_210000_001",
  title: "A",
  created_at: "2026-07-11 21:00:00",
  updated_at: "2026-07-11 21:00:00",
  project_path: "/tmp/p",
  model_key: "m",
  thinking_mode: false,
  run_mode: "fast",
  status: "active",
  agent_count: 1,
  agent_ids: [1],
};

const agent: AgentMetadata = {
  agent_id: 1,
  role_id: "researcher",
  display_name: "Researcher",
  status: "running",
  created_at: "2026-07-11 21:00:00",
  updated_at: "2026-07-11 21:00:00",
  calls_this_task: 1,
};

function verdict(f: () => unknown): string {
  try {
    f();
    return "ok";
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return ((error as ValidationError).details as { path: string }[]).map((d) => d.path).join(",");
  }
}

describe("checkedChange", () => {
  it("accepts and refuses exactly what a whole check does, for changes of a value that passed it", () => {
    const changes: [string, Record<string, unknown>, "conv" | "agent"][] = [
      ["a new title", { title: "B" }, "conv"],
      ["a status the schema lacks", { status: "paused" }, "conv"],
      ["an agent id that is not positive", { agent_ids: [1, 0] }, "conv"],
      ["a count that is negative", { agent_count: -1 }, "conv"],
      ["an extra field (loose schema)", { anything: { at: "all" } }, "conv"],
      ["a phase", { phase: "ENGAGED" }, "conv"],
      ["a phase the schema lacks", { phase: "DANCING" }, "conv"],
      ["a timestamp in another format", { updated_at: "2026-07-11T21:00:00Z" }, "conv"],
      ["a counter (extra field)", { calls_this_task: 2 }, "agent"],
      ["a status", { status: "completed" }, "agent"],
      ["a status the schema lacks", { status: "sleeping" }, "agent"],
      ["a failure without its fields", { failure: {} }, "agent"],
      ["a task summary that is not text", { task_summary: 3 }, "agent"],
    ];
    for (const [what, patch, kind] of changes) {
      const [schema, prev] = kind === "conv" ? [ConversationMetadataSchema, conv as Record<string, unknown>] : [AgentMetadataSchema, agent as Record<string, unknown>];
      const next = { ...prev, ...patch };
      const whole = verdict(() => checked(schema, next as never, "x"));
      expect(verdict(() => checkedChange(schema, prev, next, "x")), what).toBe(whole);
    }
  });

  it("refuses a required field dropped, and names each issue's path from the file's root", () => {
    const withoutTitle: Partial<ConversationMetadata> = { ...conv };
    delete withoutTitle.title;
    expect(verdict(() => checkedChange(ConversationMetadataSchema, conv, withoutTitle as ConversationMetadata, "x"))).toBe("title");
    expect(verdict(() => checkedChange(ConversationMetadataSchema, conv, { ...conv, agent_ids: [1, -2] }, "x"))).toBe("agent_ids.1");
    // an optional field dropped is fine
    expect(verdict(() => checkedChange(ConversationMetadataSchema, { ...conv, phase: "IDLE" }, conv, "x"))).toBe("ok");
  });

  it("leaves the skipped field to its own check and returns the value itself", () => {
    const head = { id: conv.id, title: "A", created_at: conv.created_at, updated_at: conv.updated_at, messages: [] };
    const next = { ...head, messages: [{ not: "a message" }] as never[] };
    expect(checkedChange(LeaderMessagesFileSchema, head, next, "x", "messages")).toBe(next);
    expect(verdict(() => checkedChange(LeaderMessagesFileSchema, head, next, "x"))).toMatch(/^messages/);
  });
});

import { describe, expect, it } from "vitest";
import type { AgentView, RuntimeEvent } from "@/lib/contracts/events";
import type { Message } from "@/lib/contracts/on-disk";
import { isLiveOnlyEvent } from "@/lib/contracts/events";
import { applyReconnect, applyRuntimeEvent, initialLiveState, isWorking, LIVE_COMMAND_MAX, mergeMessages, type LiveState } from "./live-state";
import { emptySnapshot } from "@/test/helpers/snapshot";

function agent(id: number, status: AgentView["metadata"]["status"] = "running"): AgentView {
  return {
    metadata: {
      agent_id: id,
      role_id: "ui-operator",
      display_name: `UI Operator_${id}`,
      status,
      created_at: "2026-07-11T21:05:00",
      updated_at: "2026-07-11T21:05:00",
    },
    last_activity: null,
    last_activity_at: null,
    action: null,
    recent_actions: [],
    working_since: null,
    tokens: { prompt_tokens: 0, cached_tokens: 0, completion_tokens: 0, total_tokens: 0, calls: 0, priced_calls: 0, cost_usd: null },
    calls_this_task: 0,
  };
}

const snapshot = emptySnapshot;

function run(events: RuntimeEvent[], from: LiveState = initialLiveState): LiveState {
  return events.reduce(applyRuntimeEvent, from);
}

const userMessage: Message = { role: "user", content: "Improve the landing page", message_id: "msg_user_001" };

describe("applyRuntimeEvent", () => {
  it("ignores changes until the first snapshot, then a snapshot replaces everything", () => {
    const before = run([{ type: "phase", phase: "ENGAGED" }]);
    expect(before.snapshot).toBeNull();

    const state = run([
      { type: "snapshot", snapshot: snapshot() },
      { type: "delta", agent_id: null, kind: "content", text: "Hel" },
      { type: "agent", agent: agent(1) },
    ]);
    expect(state.live.leader?.content).toBe("Hel");
    const replaced = applyRuntimeEvent(state, { type: "snapshot", snapshot: snapshot() });
    expect(replaced.snapshot?.agents).toEqual([]);
    expect(replaced.live).toEqual({});
    expect(replaced.epoch).toBe(state.epoch + 1);
  });

  it("accumulates live text per agent and drops it when that agent's saved message arrives", () => {
    const state = run([
      { type: "snapshot", snapshot: snapshot() },
      { type: "delta", agent_id: null, kind: "reasoning", text: "think " },
      { type: "delta", agent_id: null, kind: "content", text: "Hello " },
      { type: "delta", agent_id: null, kind: "content", text: "world" },
      { type: "delta", agent_id: 2, kind: "content", text: "agent text" },
    ]);
    expect(state.live.leader).toEqual({ content: "Hello world", reasoning: "think ", tool_call: "" });
    const saved = applyRuntimeEvent(state, {
      type: "message",
      agent_id: null,
      message: { role: "assistant", content: "Hello world", message_id: "m1" },
    });
    expect(saved.live.leader).toBeUndefined();
    expect(saved.live.agent_2?.content).toBe("agent text");
    expect(saved.snapshot?.leader.messages.map((m) => m.content)).toEqual(["Hello world"]);
  });

  it("shows a running command's output live and drops it when its tool result is saved", () => {
    const state = run([
      { type: "snapshot", snapshot: snapshot() },
      { type: "agent", agent: agent(4) },
      { type: "command_output", agent_id: 4, tool_call_id: "c1", text: "line 1\n" },
      { type: "command_output", agent_id: 4, tool_call_id: "c1", text: "line 2\n" },
    ]);
    expect(state.live.agent_4?.command).toBe("line 1\nline 2\n");
    const long = applyRuntimeEvent(state, { type: "command_output", agent_id: 4, tool_call_id: "c1", text: "x".repeat(LIVE_COMMAND_MAX) });
    expect(long.live.agent_4?.command).toHaveLength(LIVE_COMMAND_MAX);
    const saved = applyRuntimeEvent(state, { type: "message", agent_id: 4, message: { role: "tool", tool_call_id: "c1", content: "{}", message_id: "t1" } });
    expect(saved.live.agent_4).toBeUndefined();
    // Live only: never kept for a reconnecting viewer.
    expect(isLiveOnlyEvent({ type: "command_output" })).toBe(true);
  });

  it("after a reconnect (live text is never replayed) shows no text with a hole, and ends with the whole saved message", () => {
    const before = run([
      { type: "snapshot", snapshot: snapshot() },
      { type: "delta", agent_id: null, kind: "content", text: "The plan: " },
      { type: "delta", agent_id: 3, kind: "content", text: "Reading" },
    ]);
    // Disconnected here; the server streamed "first, read the files; " meanwhile, which is lost.
    const back = applyReconnect(before);
    expect(back.live).toEqual({});
    expect(back.snapshot).toBe(before.snapshot);
    const streamed = run([{ type: "delta", agent_id: null, kind: "content", text: "then report." }], back);
    // Only what was streamed since: never "The plan: then report." as if nothing were missing.
    expect(streamed.live.leader?.content).toBe("then report.");
    const saved = run(
      [{ type: "message", agent_id: null, message: { role: "assistant", content: "The plan: first, read the files; then report.", message_id: "msg_tl_9" } }],
      streamed,
    );
    expect(saved.live.leader).toBeUndefined();
    expect(saved.snapshot?.leader.messages.at(-1)?.content).toBe("The plan: first, read the files; then report.");
    expect(applyReconnect(initialLiveState)).toBe(initialLiveState);
  });

  it("keeps sub-agent messages apart from the leader's and never duplicates a message", () => {
    const state = run([
      { type: "snapshot", snapshot: snapshot({ leader: { messages: [userMessage], busy: true, token_statistics: {} } }) },
      { type: "message", agent_id: null, message: userMessage },
      { type: "message", agent_id: 1, message: { role: "assistant", content: "a", message_id: "a1" } },
      { type: "message", agent_id: 1, message: { role: "assistant", content: "a", message_id: "a1" } },
    ]);
    expect(state.snapshot?.leader.messages).toHaveLength(1);
    expect(state.agentMessages[1]).toHaveLength(1);
  });

  it("upserts agents, tracks questions and notices, and follows phase and busy", () => {
    const state = run([
      { type: "snapshot", snapshot: snapshot() },
      { type: "phase", phase: "ENGAGED" },
      { type: "leader_busy", busy: true },
      { type: "agent", agent: agent(1) },
      { type: "agent", agent: agent(2) },
      { type: "agent", agent: agent(1, "waiting") },
      {
        type: "question",
        question: { question_id: "ask_uio_001", agent_id: 1, display_name: "UI Operator_1", question: "Which page?", tool_call_id: "tc", created_at: 1 },
      },
      { type: "notice", notice: { level: "warning", code: "cap_agents", message: "cap", agent_id: null, at: "2026-07-11T21:00:00" } },
    ]);
    expect(state.snapshot?.agents.map((a) => [a.metadata.agent_id, a.metadata.status])).toEqual([
      [1, "waiting"],
      [2, "running"],
    ]);
    expect(state.snapshot?.questions).toHaveLength(1);
    expect(state.snapshot?.notices).toHaveLength(1);
    expect(isWorking(state.snapshot)).toBe(true);

    const done = run(
      [
        { type: "question_answered", question_id: "ask_uio_001", answered_by: "person" },
        { type: "agent", agent: agent(1, "completed") },
        { type: "agent", agent: agent(2, "completed") },
        { type: "leader_busy", busy: false },
        { type: "phase", phase: "IDLE" },
      ],
      state,
    );
    expect(done.snapshot?.questions).toEqual([]);
    expect(isWorking(done.snapshot)).toBe(false);
  });
});

describe("mergeMessages", () => {
  it("appends only messages the base does not hold, by id, tool call id or content", () => {
    const base: Message[] = [userMessage, { role: "tool", content: "{}", tool_call_id: "call_1" }];
    const merged = mergeMessages(base, [
      userMessage,
      { role: "tool", content: "{}", tool_call_id: "call_1" },
      { role: "assistant", content: "new" },
      { role: "assistant", content: "new" },
    ]);
    expect(merged.map((m) => m.content)).toEqual(["Improve the landing page", "{}", "new"]);
  });
});

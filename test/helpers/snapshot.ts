/** A minimal conversation snapshot for the client state tests (data only). */
import type { ConversationSnapshot } from "@/lib/contracts/events";

/** An idle, empty conversation's snapshot, with `overrides` on top. */
export function emptySnapshot(overrides: Partial<ConversationSnapshot> = {}): ConversationSnapshot {
  return {
    conversation: {
      id: "conv_20260711_210000_001",
      title: "t",
      created_at: "2026-07-11T21:00:00",
      updated_at: "2026-07-11T21:00:00",
      project_path: "/tmp/p",
      model_key: "offline",
      thinking_mode: false,
      run_mode: "fast",
      status: "active",
      agent_count: 0,
      agent_ids: [],
      phase: "IDLE",
    },
    leader: { messages: [], busy: false, token_statistics: {} },
    agents: [],
    questions: [],
    notices: [],
    caps: { max_agents: 8, max_calls_per_task: 30 },
    model_label: "offline",
    ...overrides,
  };
}

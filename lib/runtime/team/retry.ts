import "server-only";
/**
 * A person retries work that failed (the Retry of a failure's banner or mark): the leader's
 * model call for the message it failed on, or an idle agent's task where it stopped — or the
 * tool calls of an answer a crash left unrun (the loop runs them once, ./effects.ts). Nothing is
 * re-sent, so nothing is duplicated; a retry of nothing is refused (409).
 */
import { ConflictError } from "@/lib/contracts/errors";
import type { Message } from "@/lib/contracts/on-disk";
import { needsModelCall, unansweredToolCalls } from "@/lib/protocol";
import type { NoticeExtras } from "./notice";
import type { TeamState } from "./state";
import { failureRefs } from "./steps";

/** Whether a loop woken on `messages` has work to take up: a model call to make, or tool calls to run. */
function resumable(messages: readonly Message[]): boolean {
  return needsModelCall(messages) || unansweredToolCalls(messages).length > 0;
}

/**
 * What ties a crash of the leader's (null) or an agent's loop to its work (./steps.ts
 * `failureRefs`), and whether {@link retryWork} can take it up (an agent crashed at work, whose
 * loop is paused, idle).
 */
export async function crashRefs(s: TeamState, agentId: number | null): Promise<NoticeExtras> {
  const refs = await failureRefs(s, agentId);
  const { messages } = agentId === null ? await s.store.readLeaderMessages(s.convId) : await s.store.readAgentMessages(s.convId, agentId);
  const status = agentId === null ? "idle" : (await s.readAgent(agentId)).status;
  return { ...refs, retryable: resumable(messages) && (status === "running" || status === "idle") };
}

/** What a retry needs of the run that owns the loops. */
export interface RetryLoops {
  /** Whether the leader's loop is running now. */
  readonly leaderRunning: boolean;
  wakeLeader(): void;
  wakeAgent(agentId: number): void;
}

/**
 * Retries the failed work of the leader (null) or one agent: 409 when the leader is working or
 * its last message was answered, or the agent is not idle or has nothing left to answer.
 */
export async function retryWork(s: TeamState, agentId: number | null, loops: RetryLoops): Promise<{ retried: "leader" | number }> {
  if (agentId === null) {
    const leader = await s.store.readLeaderMessages(s.convId);
    if (loops.leaderRunning || !resumable(leader.messages)) throw new ConflictError("The Team Leader has nothing to retry: it is working, or its last message was answered.");
    if (s.stopController.signal.aborted) s.stopController = new AbortController();
    loops.wakeLeader();
    return { retried: "leader" };
  }
  const meta = await s.readAgent(agentId);
  const { messages } = await s.store.readAgentMessages(s.convId, agentId);
  if (meta.status !== "idle" || !resumable(messages)) {
    throw new ConflictError(`Agent ${agentId} has nothing to retry: it is ${meta.status}${meta.status === "idle" ? ", and its last message was answered" : ""}.`, { status: meta.status });
  }
  if (s.stopController.signal.aborted) s.stopController = new AbortController();
  // It reports again when it ends, failed or not: the failure it reported is what is retried.
  s.activity.startWork(agentId, new Date().toISOString());
  await s.agentEvent(agentId, "assign", (m) => ({ ...m, reported: false, failure: undefined }));
  loops.wakeAgent(agentId);
  return { retried: agentId };
}

/**
 * What an agent card says the agent is doing, from the runtime's action descriptors (lib/contracts
 * `AgentAction`) and the agent's status: words in the page's language ("reading src/x.ts",
 * "waiting for your approval of npm test"). Only a running agent is doing something: a stopped,
 * idle or finished one says so, never "thinking". Pure.
 */
import type { AgentAction, AgentView } from "@/lib/contracts/events";
import { en, type MessageKey } from "@/lib/i18n/dictionaries/en";
import type { TranslateFn } from "@/lib/i18n/translate";
import { hasOwnKey } from "@/lib/own";

/** What an agent card shows as its current state: an action at work, or a resting state. */
export type CurrentAction = { live: true; action: AgentAction } | { live: false; kind: "idle" | "done" | "terminated" };

/** Actions a waiting agent can be in (anything else it waits on is a question to the leader). */
const WAITING_KINDS: ReadonlySet<string> = new Set(["ask_leader", "await_approval", "ability_wait"]);

/** The current state of `agent`: its latest action while it runs or waits; its status otherwise. */
export function currentAction(agent: AgentView): CurrentAction {
  const { status } = agent.metadata;
  const action = agent.action;
  if (status === "running") return { live: true, action: action ?? { kind: "think", at: agent.metadata.updated_at } };
  if (status === "waiting") {
    if (action && WAITING_KINDS.has(action.kind)) return { live: true, action };
    return { live: true, action: { kind: "ask_leader", at: action?.at ?? agent.metadata.updated_at } };
  }
  if (status === "terminated") return { live: false, kind: "terminated" };
  return { live: false, kind: status === "completed" ? "done" : "idle" };
}

/** The words of one action: its kind's phrase with its target, a generic phrase for a kind this page does not know. */
export function actionText(action: Pick<AgentAction, "kind" | "target">, t: TranslateFn): string {
  const key = `agentAction.${action.kind}`;
  if (!hasOwnKey(en, key) || action.kind === "unknown") return t("agentAction.unknown", { target: action.kind });
  return t(key as MessageKey, { target: action.target ?? "" }).trim();
}

/** The words of an agent's current state. */
export function currentActionText(current: CurrentAction, t: TranslateFn): string {
  return current.live ? actionText(current.action, t) : t(`agentAction.${current.kind}`);
}

/** A duration as a short clock: `45s`, `3m 05s`, `1h 02m`. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, "0")}m`;
  if (m > 0) return `${m}m ${String(s).padStart(2, "0")}s`;
  return `${s}s`;
}

/**
 * How long the agent has been at its current work (its task, or the message that woke it), from
 * when the runtime says it began (`working_since`, ISO UTC) to `now`; null when it is not at
 * work or the start is not known (never its creation: an agent given a second task is timed from
 * that task).
 */
export function elapsedOf(agent: AgentView, now: number): string | null {
  if (agent.metadata.status !== "running" && agent.metadata.status !== "waiting") return null;
  if (!agent.working_since) return null;
  const started = new Date(agent.working_since).getTime();
  return Number.isNaN(started) ? null : formatElapsed(now - started);
}

/**
 * What each agent of a run is doing, for the team panel: its current action (a descriptor the
 * page words in its language, lib/contracts/events.ts `AgentAction`), its last few actions, and
 * since when it is at its current work (its elapsed time counts from there). Kept in memory
 * only: it describes this server's life. Pure.
 */
import type { AgentAction, AgentActionInit, AgentView } from "@/lib/contracts/events";
import type { MessageKey } from "@/lib/i18n/dictionaries/en";
import { translate } from "@/lib/i18n/translate";

/** How many of an agent's last actions its view carries. */
const RECENT_ACTIONS = 5;

/** The actions of a run's agents. */
export class AgentActivities {
  readonly #byAgent = new Map<number, { current: AgentAction; recent: AgentAction[] }>();
  readonly #workingSince = new Map<number, string>();

  /**
   * Records that an agent began its current work at `at` (its task delivered, a retry); with
   * `ifUnknown`, only when this server knows no start yet (its loop resuming after a restart).
   */
  startWork(agentId: number, at: string, ifUnknown = false): void {
    if (!ifUnknown || !this.#workingSince.has(agentId)) this.#workingSince.set(agentId, at);
  }

  /**
   * Records what an agent is doing now, at `at` (`think` for a model call). Its last
   * {@link RECENT_ACTIONS} actions other than model calls are kept for the panel's timeline.
   */
  set(agentId: number, init: AgentActionInit, at: string): void {
    const action: AgentAction = { ...init, at };
    const recent = this.#byAgent.get(agentId)?.recent ?? [];
    this.#byAgent.set(agentId, { current: action, recent: init.kind === "think" ? recent : [...recent.slice(1 - RECENT_ACTIONS), action] });
  }

  /** The activity fields of an agent's view; `last_activity` in English words for API clients. */
  viewOf(agentId: number): Pick<AgentView, "last_activity" | "last_activity_at" | "action" | "recent_actions" | "working_since"> {
    const act = this.#byAgent.get(agentId);
    const working_since = this.#workingSince.get(agentId) ?? null;
    if (!act) return { last_activity: null, last_activity_at: null, action: null, recent_actions: [], working_since };
    return {
      working_since,
      last_activity: translate("en", `agentAction.${act.current.kind}` as MessageKey, { target: act.current.target ?? "" }).trim(),
      last_activity_at: act.current.at,
      action: act.current,
      recent_actions: act.recent,
    };
  }
}

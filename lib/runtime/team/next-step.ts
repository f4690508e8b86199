/**
 * What one pass of the leader's or a sub-agent's loop decided next, as a tagged value rather
 * than a boolean: go again, or stop for a reason — the leader waits for its agents' reports, an
 * agent waits for an answer (a question, an approval, an ability call), the work is done, a cap
 * was reached, or it was interrupted (Stop, a model that failed, no model at all). Pure.
 */

export type NextStep =
  /** The pass saved its work and there is more to do: run another pass. */
  | { type: "run_again" }
  /** The leader delegated and waits: a report (or a person) wakes it. */
  | { type: "wait_for_reports" }
  /** A sub-agent waits for a result that comes later: its question's answer, a person's approval, a teammate's reply. */
  | { type: "wait_for_answer" }
  /** Nothing left to do until new work arrives (the leader answered; the agent reported or ended its turn). */
  | { type: "done" }
  /** A cap of model calls was reached (told on the timeline and to the person). */
  | { type: "capped" }
  /** Stopped: by a person's Stop or a termination (`stopped`), a model that failed, or no model to call. */
  | { type: "interrupted"; reason: "stopped" | "model_failed" | "no_model" };

export const RUN_AGAIN: NextStep = Object.freeze({ type: "run_again" });
export const DONE: NextStep = Object.freeze({ type: "done" });
export const CAPPED: NextStep = Object.freeze({ type: "capped" });
export const WAIT_FOR_REPORTS: NextStep = Object.freeze({ type: "wait_for_reports" });
export const WAIT_FOR_ANSWER: NextStep = Object.freeze({ type: "wait_for_answer" });

export function interrupted(reason: "stopped" | "model_failed" | "no_model"): NextStep {
  return { type: "interrupted", reason };
}

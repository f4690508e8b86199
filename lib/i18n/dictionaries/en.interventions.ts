/** English strings of interventions in a running team (issue 32): the composer's strategy, the queue, a withdrawn task, a cancelled answer (part of {@link en} in ./en.ts). */
export const enInterventions = {
  "intervention.strategyLabel": "While the team works",
  "intervention.strategy.steer": "Steer: read at its next step",
  "intervention.strategy.queue": "Queue: after the current work",
  "intervention.strategy.interrupt": "Interrupt: cancel its current answer",
  "intervention.strategy.new_task": "New task: a separate request",
  "intervention.queued": "Queued messages ({n})",
  "intervention.queuedBy": "{name}",
  "intervention.toAgent": "to agent {agent}",
  "intervention.withdraw": "Withdraw",
  "intervention.moveUp": "Move up",
  "intervention.moveDown": "Move down",
  "intervention.withdrawTask": "Withdraw task",
  "intervention.withdrawTaskHint": "The agent is told and stops; its work so far is kept.",
  "intervention.cancelledBy": "cancelled by {name}",
  "intervention.cancelled": "cancelled",
} as const;

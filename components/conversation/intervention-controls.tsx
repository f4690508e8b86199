"use client";

import { useMutation } from "@tanstack/react-query";
import { postIntervention } from "@/lib/client";
import { INTERVENTION_STRATEGIES, type InterventionStrategy, type QueuedMessage } from "@/lib/contracts/interventions";
import { useT } from "@/lib/i18n";
import { buttonGhost } from "@/components/ui/styles";
import { buttonDangerGhost } from "./styles";
import { Banner } from "@/components/ui/banner";

/**
 * What a person picks and sees beside a composer while the team works (issue 32): how their
 * message is handled (the strategy; steer first, the default), and the queued messages, each with
 * who queued it, withdraw and move up/down. Self-contained: the composer only passes the strategy on.
 */
export function StrategyPicker({
  value,
  onChange,
  strategies = INTERVENTION_STRATEGIES,
  testId,
}: {
  value: InterventionStrategy;
  onChange: (s: InterventionStrategy) => void;
  /** The strategies offered (a sub-agent has no new task). */
  strategies?: readonly InterventionStrategy[];
  testId: string;
}) {
  const t = useT();
  return (
    <label className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
      {t("intervention.strategyLabel")}
      <select
        className="rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
        value={value}
        onChange={(e) => onChange(e.target.value as InterventionStrategy)}
        data-testid={testId}
      >
        {strategies.map((s) => (
          <option key={s} value={s}>
            {t(`intervention.strategy.${s}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The queued messages, in the order they will be handled, with withdraw and move up/down. */
export function QueuedMessages({ conversationId, queued }: { conversationId: string; queued: readonly QueuedMessage[] }) {
  const t = useT();
  const act = useMutation({ mutationFn: (body: Parameters<typeof postIntervention>[1]) => postIntervention(conversationId, body) });
  if (!queued.length) return null;
  const ids = queued.map((q) => q.id);
  const move = (index: number, by: -1 | 1) => {
    const order = [...ids];
    const [moved] = order.splice(index, 1);
    order.splice(index + by, 0, moved!);
    act.mutate({ action: "reorder", order });
  };
  return (
    <section className="space-y-1 rounded border border-zinc-200 px-2 py-1.5 text-xs dark:border-zinc-700" data-testid="queued-messages">
      <p className="font-medium text-zinc-600 dark:text-zinc-300">{t("intervention.queued", { n: queued.length })}</p>
      <ol className="space-y-1">
        {queued.map((q, i) => (
          <li key={q.id} className="flex items-center gap-2" data-testid="queued-message" data-queue-id={q.id}>
            <span className="shrink-0 font-semibold" data-testid="queued-author">
              {t("intervention.queuedBy", { name: q.author?.name ?? "" })}
            </span>
            {q.agent_id !== null ? <span className="shrink-0 text-zinc-500">{t("intervention.toAgent", { agent: q.agent_id })}</span> : null}
            <span className="min-w-0 flex-1 truncate" title={q.content} data-testid="queued-content">
              {q.content}
            </span>
            <button type="button" className={buttonGhost} disabled={i === 0 || act.isPending} onClick={() => move(i, -1)} aria-label={t("intervention.moveUp")} data-testid="queued-up">
              ↑
            </button>
            <button type="button" className={buttonGhost} disabled={i === queued.length - 1 || act.isPending} onClick={() => move(i, 1)} aria-label={t("intervention.moveDown")} data-testid="queued-down">
              ↓
            </button>
            <button type="button" className={buttonDangerGhost} disabled={act.isPending} onClick={() => act.mutate({ action: "withdraw_queued", queue_id: q.id })} data-testid="queued-withdraw">
              {t("intervention.withdraw")}
            </button>
          </li>
        ))}
      </ol>
      {act.error ? <Banner tone="error">{act.error.message}</Banner> : null}
    </section>
  );
}

/** Withdraws the task an agent works on (it is told and stops; its work so far is kept). */
export function WithdrawTaskButton({ conversationId, agentId }: { conversationId: string; agentId: number }) {
  const t = useT();
  const withdraw = useMutation({ mutationFn: () => postIntervention(conversationId, { action: "withdraw_task", agent_id: agentId }) });
  return (
    <span className="flex flex-col items-end gap-1">
      <button type="button" className={buttonDangerGhost} title={t("intervention.withdrawTaskHint")} disabled={withdraw.isPending} onClick={() => withdraw.mutate()} data-testid="agent-withdraw-task">
        {t("intervention.withdrawTask")}
      </button>
      {withdraw.error ? (
        <span role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid="agent-withdraw-error">
          {withdraw.error.message}
        </span>
      ) : null}
    </span>
  );
}

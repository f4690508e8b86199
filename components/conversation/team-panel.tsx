"use client";

import type { AgentView, Caps, PendingQuestion } from "@/lib/contracts/events";
import { useLocale, useT } from "@/lib/i18n";
import { cardClass } from "@/components/ui/styles";
import { AgentActivity } from "./agent-activity";
import { AgentStatusBadge } from "./agent-status-badge";
import { formatTokens } from "@/components/ui/format";
import { formatUsd } from "@/lib/models/cost";
import { TokenStatistics } from "./token-statistics";
import { useNow } from "@/components/ui/use-now";

/** The live team: every sub-agent as a card (click to open its drawer) and the token statistics. */
export function TeamPanel({
  agents,
  questions,
  caps,
  tokenStatistics,
  selectedAgentId,
  onSelect,
  loading,
}: {
  agents: readonly AgentView[];
  questions: readonly PendingQuestion[];
  caps: Caps | null;
  tokenStatistics: Record<string, unknown>;
  selectedAgentId: number | null;
  onSelect: (agentId: number) => void;
  loading: boolean;
}) {
  const t = useT();
  // Each second, so the elapsed time of a long run moves.
  const now = useNow(1000);
  const waiting = new Set(questions.map((q) => q.agent_id));
  return (
    <aside className="space-y-4" data-testid="team-panel" aria-labelledby="team-panel-title">
      <section className={`${cardClass} p-3`}>
        <header className="mb-2 flex items-baseline justify-between gap-2 px-1">
          <h2 id="team-panel-title" className="text-sm font-semibold">
            {t("team.title")}
          </h2>
          {caps ? (
            <span className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="team-count">
              {t("team.count", { n: agents.length, max: caps.max_agents })}
            </span>
          ) : null}
        </header>
        {loading ? (
          <p className="px-1 py-3 text-sm text-zinc-500">{t("common.loading")}</p>
        ) : agents.length === 0 ? (
          <p className="px-1 py-3 text-sm text-zinc-500 dark:text-zinc-400" data-testid="team-empty">
            {t("team.empty")}
          </p>
        ) : (
          <ul className="space-y-2">
            {agents.map((agent) => (
              <li key={agent.metadata.agent_id}>
                <AgentCard
                  agent={agent}
                  caps={caps}
                  now={now}
                  waiting={waiting.has(agent.metadata.agent_id)}
                  selected={selectedAgentId === agent.metadata.agent_id}
                  onSelect={onSelect}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
      <TokenStatistics stats={tokenStatistics} agents={agents} />
    </aside>
  );
}

function AgentCard({
  agent,
  caps,
  now,
  waiting,
  selected,
  onSelect,
}: {
  agent: AgentView;
  caps: Caps | null;
  now: number;
  waiting: boolean;
  selected: boolean;
  onSelect: (agentId: number) => void;
}) {
  const t = useT();
  const locale = useLocale();
  const { metadata } = agent;
  return (
    <button
      type="button"
      onClick={() => onSelect(metadata.agent_id)}
      className={`block w-full rounded-md border px-3 py-2.5 text-left transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 ${
        selected
          ? "border-indigo-400 bg-indigo-50/70 dark:border-indigo-500 dark:bg-indigo-950/40"
          : waiting
            ? "border-amber-300 bg-amber-50/60 hover:bg-amber-50 dark:border-amber-700 dark:bg-amber-950/20 dark:hover:bg-amber-950/40"
            : "border-zinc-200 hover:bg-zinc-50 dark:border-zinc-700 dark:hover:bg-zinc-800/60"
      }`}
      data-testid="agent-card"
      data-agent-id={metadata.agent_id}
      data-status={metadata.status}
      aria-label={t("team.open", { name: metadata.display_name })}
    >
      <div className="flex items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="truncate text-sm font-semibold" data-testid="agent-name">
            {metadata.display_name}
          </p>
          <p className="truncate font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{metadata.role_id}</p>
        </div>
        <AgentStatusBadge status={metadata.status} failed={Boolean(metadata.failure)} />
      </div>
      {waiting ? (
        <p className="mt-1.5 inline-flex items-center gap-1 rounded bg-amber-200/70 px-1.5 py-0.5 text-[11px] font-semibold text-amber-900 dark:bg-amber-800/60 dark:text-amber-100" data-testid="agent-waiting-marker">
          ? {t("team.waitingForYou")}
        </p>
      ) : null}
      {metadata.task_summary ? (
        <p className="mt-1.5 line-clamp-2 text-xs text-zinc-700 dark:text-zinc-300" data-testid="agent-task" title={metadata.task_summary}>
          {metadata.task_summary}
        </p>
      ) : null}
      <AgentActivity agent={agent} now={now} recent={3} />
      <p className="mt-1 flex gap-3 text-[11px] text-zinc-500 dark:text-zinc-400">
        <span data-testid="agent-tokens">{t("team.tokens", { n: formatTokens(agent.tokens.total_tokens, locale) })}</span>
        {agent.tokens.cost_usd !== null ? <span data-testid="agent-cost">{formatUsd(agent.tokens.cost_usd, locale)}</span> : null}
        <span data-testid="agent-calls">
          {caps ? t("team.calls", { n: agent.calls_this_task, max: caps.max_calls_per_task }) : t("team.callsNoCap", { n: agent.calls_this_task })}
        </span>
      </p>
    </button>
  );
}

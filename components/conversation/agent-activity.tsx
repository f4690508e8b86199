"use client";

import { currentAction, currentActionText, elapsedOf } from "@/lib/client/agent-actions";
import type { AgentView } from "@/lib/contracts/events";
import { useLocale, useT } from "@/lib/i18n";
import { formatRelativeTime } from "@/components/ui/format";
import { ActionWords, actionWords } from "./action-words";

/**
 * What an agent is doing, in words (lib/client/agent-actions.ts): its current action with how
 * long it has been at work, and a small timeline of its last actions with relative times.
 * Spans only: it sits inside the team panel's card, which is a button.
 */
export function AgentActivity({ agent, now, recent = 5 }: { agent: AgentView; now: number; recent?: number }) {
  const t = useT();
  const locale = useLocale();
  const current = currentAction(agent);
  const text = current.live ? actionWords(current.action, t).title : currentActionText(current, t);
  const elapsed = elapsedOf(agent, now);
  const since = current.live ? formatRelativeTime(current.action.at, now, locale) : "";
  const timeline = agent.recent_actions.slice(-recent).reverse();
  return (
    <span className="mt-1.5 block text-[11px] text-zinc-500 dark:text-zinc-400" data-testid="agent-activity">
      <span className="flex items-baseline gap-1.5">
        <span
          className={`min-w-0 truncate ${current.live ? "font-medium text-zinc-700 dark:text-zinc-200" : ""}`}
          data-testid="agent-current-action"
          data-kind={current.live ? current.action.kind : current.kind}
          title={text}
        >
          {current.live ? <ActionWords action={current.action} t={t} /> : text}
        </span>
        {since ? <span className="shrink-0">· {since}</span> : null}
        {elapsed ? (
          <span className="ml-auto shrink-0 tabular-nums" data-testid="agent-elapsed">
            {t("agentAction.elapsed", { time: elapsed })}
          </span>
        ) : null}
      </span>
      {timeline.length > 0 ? (
        <span className="mt-1 block border-l border-zinc-200 pl-2 dark:border-zinc-700" aria-label={t("agentAction.recent")} data-testid="agent-recent-actions">
          {timeline.map((a, i) => (
            <span key={`${a.at}-${i}`} className="flex items-baseline gap-1.5" data-testid="agent-recent-action" data-kind={a.kind}>
              <span className="min-w-0 truncate">
                <ActionWords action={a} t={t} />
              </span>
              <time className="shrink-0" dateTime={a.at}>
                · {formatRelativeTime(a.at, now, locale)}
              </time>
            </span>
          ))}
        </span>
      ) : null}
    </span>
  );
}

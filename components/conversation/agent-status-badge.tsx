"use client";

import type { AgentStatus } from "@/lib/store/schemas";
import { useT } from "@/lib/i18n";

const TONES: Record<AgentStatus, { badge: string; dot: string }> = {
  running: { badge: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200", dot: "bg-emerald-500" },
  waiting: { badge: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200", dot: "bg-amber-500" },
  idle: { badge: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300", dot: "bg-zinc-400" },
  completed: { badge: "bg-sky-100 text-sky-800 dark:bg-sky-900/50 dark:text-sky-200", dot: "bg-sky-500" },
  terminated: { badge: "bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200", dot: "bg-red-500" },
};

/** A sub-agent's status; the dot pulses while it runs. */
export function AgentStatusBadge({ status }: { status: AgentStatus }) {
  const t = useT();
  const tone = TONES[status];
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ${tone.badge}`}
      data-testid="agent-status"
      data-status={status}
    >
      <span aria-hidden className="relative inline-flex h-1.5 w-1.5">
        {status === "running" ? (
          <span className={`absolute inline-flex h-full w-full animate-ping rounded-full opacity-75 ${tone.dot}`} />
        ) : null}
        <span className={`relative inline-flex h-1.5 w-1.5 rounded-full ${tone.dot}`} />
      </span>
      {t(`agentStatus.${status}`)}
    </span>
  );
}

"use client";

import type { ConversationPhase } from "@/lib/store/schemas";
import type { ConnectionState } from "@/lib/client";
import { useT } from "@/lib/i18n";

const TONES: Record<ConversationPhase, { badge: string; dot: string }> = {
  IDLE: { badge: "bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300", dot: "bg-zinc-400" },
  ENGAGED: { badge: "bg-indigo-100 text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200", dot: "bg-indigo-500" },
  WAITING: { badge: "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200", dot: "bg-amber-500" },
  RESPONDING: { badge: "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200", dot: "bg-emerald-500" },
  HANDOFF: { badge: "bg-violet-100 text-violet-800 dark:bg-violet-900/50 dark:text-violet-200", dot: "bg-violet-500" },
  CLOSED: { badge: "bg-zinc-200 text-zinc-600 dark:bg-zinc-700 dark:text-zinc-300", dot: "bg-zinc-500" },
};

/** The conversation phase, translated and coloured; the dot pulses while the team works. */
export function PhaseIndicator({ phase, working }: { phase: ConversationPhase; working: boolean }) {
  const t = useT();
  const tone = TONES[phase];
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-medium ${tone.badge}`}
      data-testid="phase-indicator"
      data-phase={phase}
      title={t(`phase.${phase}.hint`)}
    >
      <span aria-hidden className={`h-1.5 w-1.5 rounded-full ${tone.dot} ${working ? "animate-pulse" : ""}`} />
      {t(`phase.${phase}`)}
    </span>
  );
}

/** Whether the live stream is connected. */
export function ConnectionIndicator({ connection }: { connection: ConnectionState }) {
  const t = useT();
  const tone =
    connection === "open"
      ? "text-emerald-700 dark:text-emerald-400"
      : "text-amber-700 dark:text-amber-400";
  return (
    <span className={`inline-flex items-center gap-1 text-xs ${tone}`} data-testid="connection-state" data-state={connection}>
      <span aria-hidden className={`h-1.5 w-1.5 rounded-full bg-current ${connection === "open" ? "" : "animate-pulse"}`} />
      {t(`live.connection.${connection}`)}
    </span>
  );
}

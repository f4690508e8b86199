"use client";

import type { ConversationPhase } from "@/lib/contracts/on-disk";
import type { ConnectionState } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { TONES as TONE, type Tone } from "@/components/ui/tones";

const TONES: Record<ConversationPhase, Tone> = {
  IDLE: TONE.neutral,
  ENGAGED: TONE.brand,
  WAITING: TONE.attention,
  RESPONDING: TONE.active,
  HANDOFF: TONE.handoff,
  CLOSED: TONE.muted,
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

"use client";

import type { AgentStatus } from "@/lib/store/schemas";
import { useT } from "@/lib/i18n";
import { TONES as TONE, type Tone } from "@/components/ui/tones";

const TONES: Record<AgentStatus, Tone> = {
  running: TONE.active,
  waiting: TONE.attention,
  idle: TONE.neutral,
  completed: TONE.info,
  terminated: TONE.danger,
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

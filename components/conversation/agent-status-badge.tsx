"use client";

import type { AgentStatus } from "@/lib/contracts/on-disk";
import { useT } from "@/lib/i18n";
import { TONES as TONE, type Tone } from "@/components/ui/tones";

const TONES: Record<AgentStatus, Tone> = {
  running: TONE.active,
  waiting: TONE.attention,
  idle: TONE.neutral,
  completed: TONE.info,
  terminated: TONE.danger,
};

/**
 * A sub-agent's status; the dot pulses while it runs. An agent whose loop ended on an internal
 * error (`failure` in its metadata) shows "failed" until its next task.
 */
export function AgentStatusBadge({ status, failed = false }: { status: AgentStatus; failed?: boolean }) {
  const t = useT();
  const shownFailed = failed && status !== "running";
  const tone = shownFailed ? TONE.danger : TONES[status];
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ${tone.badge}`}
      data-testid="agent-status"
      data-status={status}
      data-failed={shownFailed ? "true" : undefined}
    >
      <span aria-hidden className="relative inline-flex h-1.5 w-1.5">
        {status === "running" ? (
          <span className={`absolute inline-flex h-full w-full animate-ping rounded-full opacity-75 ${tone.dot}`} />
        ) : null}
        <span className={`relative inline-flex h-1.5 w-1.5 rounded-full ${tone.dot}`} />
      </span>
      {shownFailed ? t("agentStatus.failed") : t(`agentStatus.${status}`)}
    </span>
  );
}

"use client";

import type { ConversationStatus } from "@/lib/contracts/on-disk";
import { useT } from "@/lib/i18n";
import { badgeClass } from "@/components/ui/styles";
import { TONES } from "@/components/ui/tones";

/** Active / Archived. */
export function StatusBadge({ status }: { status: ConversationStatus }) {
  const t = useT();
  const tone = (status === "active" ? TONES.active : TONES.muted).badge;
  return (
    <span className={`${badgeClass} ${tone}`} data-testid="conversation-status">
      {t(status === "active" ? "status.active" : "status.archived")}
    </span>
  );
}

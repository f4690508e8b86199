"use client";

import type { ConversationStatus } from "@/lib/store/schemas";
import { useT } from "@/lib/i18n";
import { badgeClass } from "@/components/ui/styles";

/** Active / Archived. */
export function StatusBadge({ status }: { status: ConversationStatus }) {
  const t = useT();
  const tone =
    status === "active"
      ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200"
      : "bg-zinc-200 text-zinc-700 dark:bg-zinc-700 dark:text-zinc-200";
  return (
    <span className={`${badgeClass} ${tone}`} data-testid="conversation-status">
      {t(status === "active" ? "status.active" : "status.archived")}
    </span>
  );
}

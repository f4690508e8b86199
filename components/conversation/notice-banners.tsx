"use client";

import Link from "next/link";
import { useState } from "react";
import type { Notice } from "@/lib/contracts/events";
import type { ConversationMetadata } from "@/lib/contracts/on-disk";
import { ConnectionDoctor } from "@/components/settings/connection-doctor";
import { ModelPicker } from "./model-picker";
import { groupNotices, noticeText } from "@/lib/client/notices";
import { useT } from "@/lib/i18n";
import { RetryButton } from "./retry-button";

const TONES: Record<Notice["level"], string> = {
  error: "border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950/60 dark:text-red-200",
  warning: "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-700 dark:bg-amber-950/50 dark:text-amber-200",
  info: "border-sky-300 bg-sky-50 text-sky-900 dark:border-sky-700 dark:bg-sky-950/50 dark:text-sky-200",
};

/** How many banners show at once; older ones stay in the timeline. */
const MAX_SHOWN = 3;

/**
 * The runtime's notices as dismissible banners, one per problem however often it was reported
 * (lib/client/notices.ts `groupNotices`): a failing model endpoint (with "change model" for this
 * conversation and "test connection" of the model that failed, beside how to configure one, and
 * Retry while the work it failed stands), a cap reached, a stop. A dismissed problem stays
 * dismissed until it is reported again.
 */
export function NoticeBanners({
  notices,
  conversation,
  retryable = () => false,
}: {
  notices: readonly Notice[];
  conversation?: ConversationMetadata;
  /** Whether the failed work of a party (null: the leader) can be retried now. */
  retryable?: (agentId: number | null) => boolean;
}) {
  const t = useT();
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(() => new Set());
  const shown = groupNotices(notices)
    .filter((g) => !dismissed.has(`${g.id}#${g.members.length}`))
    .slice(-MAX_SHOWN);
  if (shown.length === 0) return null;
  return (
    <div className="space-y-2" data-testid="notice-banners">
      {shown.map((g) => {
        const n = g.notice;
        const key = `${g.id}#${g.members.length}`;
        const modelProblem = n.level === "error" && n.code.startsWith("model");
        const failed = n.level === "error" && n.message_id !== undefined;
        return (
          <div
            key={key}
            role={n.level === "error" ? "alert" : "status"}
            className={`flex items-start gap-3 rounded-md border px-3 py-2 text-sm ${TONES[n.level]}`}
            data-testid="notice-banner"
            data-level={n.level}
            data-code={n.code}
            data-count={g.members.length}
          >
            <div className="min-w-0 flex-1">
              <p className="font-medium">{t(`notice.title.${n.level}`)}</p>
              <p className="mt-0.5 break-words" data-testid="notice-text">
                {noticeText(n, t)}
              </p>
              {modelProblem ? (
                <p className="mt-1 text-xs">
                  {t("notice.modelHelp")}{" "}
                  <Link href="/settings" className="font-medium underline">
                    {t("notice.openSettings")}
                  </Link>
                </p>
              ) : null}
              {failed && conversation && n.retryable !== false && retryable(n.agent_id) ? (
                <div className="mt-2">
                  <RetryButton conversationId={conversation.id} agentId={n.agent_id} testId="notice-retry" />
                </div>
              ) : null}
              {modelProblem && conversation ? <ModelProblemActions notice={n} conversation={conversation} /> : null}
            </div>
            <button
              type="button"
              className="shrink-0 rounded px-1.5 text-base leading-none opacity-70 hover:opacity-100"
              aria-label={t("notice.dismiss")}
              onClick={() => setDismissed((prev) => new Set(prev).add(key))}
              data-testid="notice-dismiss"
            >
              ✕
            </button>
          </div>
        );
      })}
    </div>
  );
}

/**
 * What a person can do about a failing model from the banner itself: move this conversation to
 * another model (its next call uses it; the timeline records the change), or test the connection
 * of the model that failed (the connection doctor, as in Settings → Models).
 */
function ModelProblemActions({ notice, conversation }: { notice: Notice; conversation: ConversationMetadata }) {
  const t = useT();
  const failed = typeof notice.params?.model === "string" && notice.params.model ? notice.params.model : conversation.model_key;
  return (
    <div className="mt-2 flex flex-wrap items-start gap-3" data-testid="notice-model-actions">
      <ModelPicker conversation={conversation} openLabel={t("notice.changeModel")} testId="notice-model" />
      {failed !== "offline" ? <ConnectionDoctor modelKey={failed} /> : null}
    </div>
  );
}

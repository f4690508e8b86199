"use client";

import { useMutation } from "@tanstack/react-query";
import { inputErrorText, retryWork } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { buttonSecondary } from "@/components/ui/styles";

/**
 * Retries failed work through `POST …/retry`: the leader's (agentId null) model call for the
 * message it failed on, or an idle agent's task. Nothing is re-sent; the run's events show what
 * happens next (the mark and the banner go once something is saved after the failure).
 */
export function RetryButton({ conversationId, agentId, testId }: { conversationId: string; agentId: number | null; testId: string }) {
  const t = useT();
  const locale = useLocale();
  const retry = useMutation({ mutationFn: () => retryWork(conversationId, agentId) });
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button type="button" className={`${buttonSecondary} px-2 py-0.5 text-xs`} onClick={() => retry.mutate()} disabled={retry.isPending} data-testid={testId}>
        {retry.isPending ? t("failure.retrying") : t("failure.retry")}
      </button>
      {retry.error ? (
        <span role="alert" className="text-xs text-red-700 dark:text-red-300" data-testid={`${testId}-error`}>
          {inputErrorText(retry.error, t, locale, "message")}
        </span>
      ) : null}
    </span>
  );
}

"use client";

import type { PendingQuestion } from "@/lib/contracts/events";
import { useT } from "@/lib/i18n";

/** Questions sub-agents wait on, above the composer; "Answer" opens that agent's drawer. */
export function PendingQuestions({
  questions,
  onOpen,
}: {
  questions: readonly PendingQuestion[];
  onOpen: (agentId: number) => void;
}) {
  const t = useT();
  if (questions.length === 0) return null;
  return (
    <ul className="space-y-1.5" data-testid="pending-questions">
      {questions.map((q) => (
        <li
          key={q.question_id}
          className="flex items-center gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-xs text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-100"
          data-testid="pending-question-strip"
          data-agent-id={q.agent_id}
        >
          <span className="shrink-0 font-semibold">{t("questions.asks", { name: q.display_name })}</span>
          <span className="min-w-0 flex-1 truncate" title={q.question}>
            {q.question}
          </span>
          <button
            type="button"
            className="shrink-0 rounded bg-amber-600 px-2 py-0.5 font-medium text-white hover:bg-amber-500 dark:bg-amber-500 dark:text-amber-950 dark:hover:bg-amber-400"
            onClick={() => onOpen(q.agent_id)}
            data-testid="pending-question-open"
          >
            {t("questions.answer")}
          </button>
        </li>
      ))}
    </ul>
  );
}

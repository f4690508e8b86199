"use client";

import type { AgentMessage } from "@/lib/contracts/messages";
import { useT } from "@/lib/i18n";
import type { MessageKey } from "@/lib/i18n";
import { Markdown } from "@/components/ui/markdown";
import type { AgentCardVariant } from "./thread-items";

const STYLE: Record<AgentCardVariant, { testId: string; title: MessageKey; tone: string; accent: string }> = {
  report: {
    testId: "report-card",
    title: "card.report",
    tone: "border-emerald-200 bg-emerald-50/60 dark:border-emerald-900 dark:bg-emerald-950/20",
    accent: "text-emerald-800 dark:text-emerald-300",
  },
  task: {
    testId: "task-card",
    title: "card.task",
    tone: "border-indigo-200 bg-indigo-50/60 dark:border-indigo-900 dark:bg-indigo-950/20",
    accent: "text-indigo-800 dark:text-indigo-300",
  },
  message: {
    testId: "message-card",
    title: "card.message",
    tone: "border-sky-200 bg-sky-50/60 dark:border-sky-900 dark:bg-sky-950/20",
    accent: "text-sky-800 dark:text-sky-300",
  },
  question: {
    testId: "question-card",
    title: "card.question",
    tone: "border-amber-300 bg-amber-50/70 dark:border-amber-800 dark:bg-amber-950/25",
    accent: "text-amber-900 dark:text-amber-300",
  },
};

const ICON: Record<AgentCardVariant, string> = { report: "✓", task: "→", message: "✉", question: "?" };

/** An inter-agent message (task, message, report, question) as a card; never its raw header. */
export function AgentMessageCard({ parsed, variant }: { parsed: AgentMessage; variant: AgentCardVariant }) {
  const t = useT();
  const style = STYLE[variant];
  const sender = parsed.sender === "Team Leader" ? t("msg.role.assistant") : parsed.sender;
  return (
    <article
      className={`rounded-lg border px-4 py-3 ${style.tone}`}
      data-testid={style.testId}
      data-sender={parsed.sender}
      data-message-id={parsed.id}
    >
      <header className={`mb-1.5 flex flex-wrap items-center gap-x-2 text-xs font-semibold ${style.accent}`}>
        <span aria-hidden className="inline-flex h-4 w-4 items-center justify-center rounded-full bg-current/10">
          {ICON[variant]}
        </span>
        <span>{t(style.title, { sender })}</span>
        <span className="font-mono font-normal opacity-70">· {parsed.id}</span>
      </header>
      {parsed.body.trim() ? <Markdown>{parsed.body}</Markdown> : null}
    </article>
  );
}

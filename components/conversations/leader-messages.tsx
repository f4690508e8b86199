"use client";

import { useQuery } from "@tanstack/react-query";
import type { Message } from "@/lib/store/schemas";
import { conversationMessagesQuery } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { Markdown } from "@/components/ui/markdown";
import { cardClass } from "@/components/ui/styles";

/** The Team Leader's conversation, read-only. Hidden messages (system prompts) are not shown. */
export function LeaderMessages({ conversationId }: { conversationId: string }) {
  const t = useT();
  const query = useQuery(conversationMessagesQuery(conversationId));
  const visible = (query.data?.messages ?? []).filter(
    (m) => m.role !== "system" && m.metadata?.visibility !== "hidden",
  );

  return (
    <section aria-labelledby="leader-messages-title" className="space-y-3" data-testid="leader-messages">
      <h2 id="leader-messages-title" className="text-lg font-semibold">
        {t("convPage.messages")}
      </h2>
      {query.isPending ? (
        <p className="text-sm text-zinc-500">{t("common.loading")}</p>
      ) : query.isError ? (
        <Banner tone="error">{t("common.loadFailed", { message: query.error.message })}</Banner>
      ) : visible.length === 0 ? (
        <div className={`${cardClass} px-6 py-8 text-center`} data-testid="leader-messages-empty">
          <p className="font-medium">{t("convPage.messagesEmpty")}</p>
          <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{t("convPage.messagesEmptyHint")}</p>
        </div>
      ) : (
        <ol className="space-y-3">
          {visible.map((m, i) => (
            <MessageItem key={m.message_id ?? i} message={m} />
          ))}
        </ol>
      )}
    </section>
  );
}

function MessageItem({ message }: { message: Message }) {
  const t = useT();
  const fromSubAgent = message.metadata?.message_source === "sub_agent";
  const who = fromSubAgent
    ? t("msg.source.sub_agent", { id: message.metadata?.agent_id ?? "?" })
    : t(`msg.role.${message.role}`);
  const tone =
    message.role === "user" && !fromSubAgent
      ? "border-indigo-200 bg-indigo-50/60 dark:border-indigo-900 dark:bg-indigo-950/30"
      : fromSubAgent || message.metadata?.visibility === "compact"
        ? "border-amber-200 bg-amber-50/50 dark:border-amber-900 dark:bg-amber-950/20"
        : "border-zinc-200 bg-white dark:border-zinc-700/80 dark:bg-zinc-900";
  return (
    <li className={`rounded-lg border px-4 py-3 ${tone}`} data-testid="leader-message" data-role={message.role}>
      <p className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{who}</p>
      {message.content ? <Markdown>{message.content}</Markdown> : null}
      {message.tool_calls?.map((call) => (
        <details key={call.id} className="mt-2 rounded-md border border-zinc-200 px-3 py-2 text-xs dark:border-zinc-700">
          <summary className="cursor-pointer font-mono">{t("msg.toolCall", { name: call.function.name })}</summary>
          <pre className="mt-2 overflow-x-auto whitespace-pre-wrap font-mono">{call.function.arguments}</pre>
        </details>
      ))}
    </li>
  );
}

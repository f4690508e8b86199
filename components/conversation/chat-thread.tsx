"use client";

import { useMemo, type ReactNode } from "react";
import type { LiveText } from "@/lib/client";
import type { Message } from "@/lib/contracts/on-disk";
import { useT } from "@/lib/i18n";
import { ContextReportDisclosure } from "@/components/context/context-report";
import { Markdown } from "@/components/ui/markdown";
import { badgeClass } from "@/components/ui/styles";
import { AgentMessageCard } from "./agent-message-card";
import { ThinkingBlock } from "./thinking-block";
import { buildThreadItems, type ThreadItem } from "./thread-items";
import { OrphanToolResult, ToolCallCard } from "./tool-call-card";
import { AuthorSchema } from "@/lib/contracts/people";

/**
 * A conversation as chat: the leader's or one sub-agent's messages in order, then the live text
 * of the model call in progress. The same renderer serves the leader chat and the agent drawer.
 */
export function ChatThread({
  messages,
  live,
  assistantName,
  empty,
  highlightId,
  failure,
}: {
  messages: readonly Message[];
  live: LiveText | undefined;
  /** Who the assistant messages are from: "Team Leader" or the agent's display name. */
  assistantName: string;
  /** Shown when there is nothing yet. */
  empty?: ReactNode;
  /** A message to mark (`data-search-target`): the one a search opened the chat at. A tool result marks the call it answers. */
  highlightId?: string;
  /** The message whose processing failed: it is marked "failed", with what to do (a Retry button). */
  failure?: { messageId: string; action?: ReactNode };
}) {
  const items = useMemo(() => buildThreadItems(messages), [messages]);
  const hasLive = !!live && (live.content || live.reasoning || live.tool_call || live.command);
  if (items.length === 0 && !hasLive) return <>{empty}</>;
  return (
    <ol className="space-y-3" data-testid="chat-thread">
      {items.map((item, i) => (
        <ThreadRow
          key={item.key}
          item={item}
          assistantName={assistantName}
          continued={items[i - 1]?.kind === "assistant"}
          highlighted={highlightId !== undefined && holds(item, highlightId)}
          failure={failure && item.message.message_id === failure.messageId ? (failure.action ?? null) : undefined}
        />
      ))}
      {hasLive ? <LiveBubble live={live} assistantName={assistantName} /> : null}
    </ol>
  );
}

function kindOf(item: ThreadItem): string {
  return item.kind === "agent-card" ? item.variant : item.kind;
}

/** Whether a chat row shows the message `id` (an assistant row also shows its calls' results). */
function holds(item: ThreadItem, id: string): boolean {
  if (item.message.message_id === id) return true;
  if (item.kind !== "assistant") return false;
  return (item.message.tool_calls ?? []).some((call) => item.toolResults.get(call.id)?.message_id === id);
}

const highlightClass = "rounded-xl ring-2 ring-amber-400 ring-offset-4 ring-offset-white dark:ring-amber-500 dark:ring-offset-zinc-900";

/** The "failed" mark under a message whose processing failed, and what to do about it. */
function FailedMark({ action, end }: { action: ReactNode; end: boolean }) {
  const t = useT();
  return (
    <div className={`mt-1 flex items-center gap-2 ${end ? "justify-end" : ""}`} data-testid="message-failed">
      <span className={`${badgeClass} bg-red-100 text-red-800 dark:bg-red-900/50 dark:text-red-200`}>{t("failure.mark")}</span>
      {action}
    </div>
  );
}

function ThreadRow({
  item,
  assistantName,
  continued,
  highlighted,
  failure,
}: {
  item: ThreadItem;
  assistantName: string;
  continued: boolean;
  highlighted: boolean;
  /** Set (an action, or null for none) when this message's processing failed. */
  failure: ReactNode | undefined;
}) {
  const common = {
    "data-testid": "chat-message",
    "data-role": item.message.role,
    "data-kind": kindOf(item),
    "data-message-id": item.message.message_id,
    ...(highlighted ? { "data-search-target": "true", "aria-current": "true" as const } : {}),
    ...(failure !== undefined ? { "data-failed": "true" } : {}),
  };
  const mark = failure !== undefined ? <FailedMark action={failure} end={item.kind === "person"} /> : null;
  switch (item.kind) {
    case "person":
      return (
        <li {...common} className={`flex flex-col items-end ${highlighted ? highlightClass : ""}`}>
          {signedAuthor(item.message) ? (
            <span className="mb-0.5 text-xs text-zinc-500 dark:text-zinc-400" translate="no" data-testid="message-author">
              {signedAuthor(item.message)}
            </span>
          ) : null}
          <div className={`max-w-[85%] rounded-2xl rounded-br-sm bg-indigo-600 px-4 py-2 text-sm whitespace-pre-wrap break-words text-white shadow-sm dark:bg-indigo-500 ${mark ? "ring-2 ring-red-400" : ""}`}>
            {item.message.content}
          </div>
          {mark}
        </li>
      );
    case "agent-card":
      return (
        <li {...common} className={`pr-6 ${highlighted ? highlightClass : ""}`}>
          <AgentMessageCard parsed={item.parsed} variant={item.variant} />
          {mark}
        </li>
      );
    case "note":
      return (
        <li {...common} className={`pr-6 ${highlighted ? highlightClass : ""}`}>
          <div className="rounded-lg border border-zinc-200 bg-zinc-50 px-4 py-2 text-sm text-zinc-700 dark:border-zinc-700 dark:bg-zinc-800/50 dark:text-zinc-300">
            <Markdown>{item.message.content ?? ""}</Markdown>
          </div>
          {mark}
        </li>
      );
    case "tool":
      return (
        <li {...common} className={`pr-6 ${highlighted ? highlightClass : ""}`}>
          <OrphanToolResult message={item.message} />
        </li>
      );
    case "assistant":
      return (
        <li {...common} className={`pr-6 ${highlighted ? highlightClass : ""}`}>
          <AssistantMessage message={item.message} toolResults={item.toolResults} assistantName={assistantName} continued={continued} />
        </li>
      );
  }
}

function reasoningOf(message: Message): string {
  const value = (message as { reasoning_content?: unknown }).reasoning_content;
  return typeof value === "string" ? value : "";
}

function AssistantMessage({
  message,
  toolResults,
  assistantName,
  continued,
}: {
  message: Message;
  toolResults: ReadonlyMap<string, Message>;
  assistantName: string;
  /** The row above is from the same assistant: its name is not repeated. */
  continued: boolean;
}) {
  const t = useT();
  const interrupted = (message.metadata as { interrupted?: unknown } | undefined)?.interrupted === true;
  // Cancelled by a person (an interrupt or a withdrawn task, issue 32): said so, with who.
  const cancelled = (message.metadata as { cancelled?: unknown; cancelled_by?: { name?: unknown } } | undefined) ?? {};
  const cancelledBy = cancelled.cancelled === true ? (typeof cancelled.cancelled_by?.name === "string" ? cancelled.cancelled_by.name : "") : null;
  const reasoning = reasoningOf(message);
  const content = message.content ?? "";
  return (
    <div className={`space-y-2 ${continued ? "-mt-1" : ""}`}>
      {!continued || interrupted ? (
        <p className="flex items-center gap-2 text-xs font-semibold text-zinc-500 dark:text-zinc-400">
          <span aria-hidden className="inline-block h-2 w-2 rounded-full bg-indigo-500" />
          {continued ? <span className="sr-only">{assistantName}</span> : assistantName}
          {interrupted && cancelledBy !== null ? (
            <span className={`${badgeClass} bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200`} data-testid="cancelled-badge">
              {cancelledBy ? t("intervention.cancelledBy", { name: cancelledBy }) : t("intervention.cancelled")}
            </span>
          ) : interrupted ? (
            <span className={`${badgeClass} bg-amber-100 text-amber-800 dark:bg-amber-900/50 dark:text-amber-200`} data-testid="interrupted-badge">
              {t("live.interrupted")}
            </span>
          ) : null}
        </p>
      ) : null}
      <ThinkingBlock text={reasoning} />
      {content.trim() ? (
        <div className="rounded-2xl rounded-tl-sm border border-zinc-200 bg-white px-4 py-2.5 shadow-sm dark:border-zinc-700/80 dark:bg-zinc-900">
          <Markdown>{content}</Markdown>
        </div>
      ) : null}
      {message.tool_calls && message.tool_calls.length > 0 ? (
        <div className="space-y-1.5">
          {message.tool_calls.map((call) => (
            <ToolCallCard key={call.id} call={call} result={toolResults.get(call.id)} />
          ))}
        </div>
      ) : null}
      <ContextReportDisclosure metadata={message.metadata} messageId={message.message_id} />
    </div>
  );
}

/** The text of the model call in progress, until its saved message replaces it. */
function LiveBubble({ live, assistantName }: { live: LiveText; assistantName: string }) {
  const t = useT();
  return (
    <li className="space-y-2 pr-6" data-testid="live-text" aria-live="polite">
      <p className="flex items-center gap-2 text-xs font-semibold text-zinc-500 dark:text-zinc-400">
        <span aria-hidden className="relative inline-flex h-2 w-2">
          <span className="absolute inline-flex h-full w-full animate-ping rounded-full bg-indigo-400 opacity-75" />
          <span className="relative inline-flex h-2 w-2 rounded-full bg-indigo-500" />
        </span>
        {assistantName}
        <span className="font-normal">{t("live.writing")}</span>
      </p>
      <ThinkingBlock text={live.reasoning} live={!live.content} />
      {live.content ? (
        <div className="rounded-2xl rounded-tl-sm border border-indigo-200 bg-white px-4 py-2.5 shadow-sm dark:border-indigo-900/70 dark:bg-zinc-900">
          <Markdown>{live.content}</Markdown>
        </div>
      ) : null}
      {live.command ? (
        <div data-testid="live-command-output">
          <p className="text-[11px] font-medium text-zinc-500 dark:text-zinc-400">{t("live.commandOutput")}</p>
          <pre className="max-h-64 overflow-auto rounded-md border border-zinc-300 bg-zinc-950 px-3 py-1.5 font-mono text-[11px] whitespace-pre-wrap break-words text-zinc-100 dark:border-zinc-700">{live.command}</pre>
        </div>
      ) : null}
      {live.tool_call ? (
        <pre className="max-h-32 overflow-auto rounded-md border border-zinc-200 bg-zinc-50/70 px-3 py-1.5 font-mono text-[11px] whitespace-pre-wrap break-words text-zinc-600 dark:border-zinc-700 dark:bg-zinc-800/40 dark:text-zinc-400">
          {live.tool_call}
        </pre>
      ) : null}
    </li>
  );
}

/** The name of a signed-in person who wrote `message` (team mode, issue 32); none at an unconfigured machine. */
function signedAuthor(message: { metadata?: Record<string, unknown> | undefined }): string | null {
  const author = AuthorSchema.safeParse(message.metadata?.author);
  return author.success && author.data.via !== undefined && author.data.via !== "local" ? author.data.name : null;
}

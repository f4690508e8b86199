"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import {
  agentDetailQuery,
  answerAgentQuestion,
  inputErrorText,
  maxLengthOf,
  mergeMessages,
  postAgentMessage,
  terminateAgent,
  type LiveText,
} from "@/lib/client";
import type { AgentView, Notice, PendingQuestion } from "@/lib/contracts/events";
import { PostMessageBodySchema } from "@/lib/contracts/http";
import { currentFailure } from "@/lib/client/notices";
import { useNow } from "@/components/ui/use-now";
import type { Message } from "@/lib/contracts/on-disk";
import { useLocale, useT } from "@/lib/i18n";
import { formatTokens } from "@/components/ui/format";
import { formatUsd } from "@/lib/models/cost";
import { Banner } from "@/components/ui/banner";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { buttonGhost, buttonPrimary, inputClass } from "@/components/ui/styles";
import { AgentActivity } from "./agent-activity";
import { AgentStatusBadge } from "./agent-status-badge";
import { buttonDangerGhost } from "./styles";
import { ChatThread } from "./chat-thread";
import { MessageBox } from "./message-box";
import { StrategyPicker, WithdrawTaskButton } from "./intervention-controls";
import type { InterventionStrategy } from "@/lib/contracts/interventions";

/** What a message to a sub-agent can be while it works (a new task is the leader's). */
const AGENT_STRATEGIES: readonly InterventionStrategy[] = ["steer", "queue", "interrupt"];
import { RetryButton } from "./retry-button";
import { PendingApprovals, pendingApprovals } from "./pending-approvals";
import { useScrollToMessage } from "./use-scroll-to-message";
import { useStickToBottom } from "@/components/ui/use-stick-to-bottom";

/** The most characters of a message to an agent (the body schema's limit). */
const MESSAGE_MAX = maxLengthOf(PostMessageBodySchema.shape.content);

/**
 * One sub-agent, beside the page: its whole conversation live (fetched once per snapshot, then
 * followed over SSE, a running command's output live), its pending question with an answer box,
 * its tool calls waiting for approval, a message box and Terminate.
 */
export function AgentDrawer({
  conversationId,
  agent,
  epoch,
  streamed,
  live,
  questions,
  notices = [],
  onClose,
  highlightId,
  onTyping,
  typingNote,
}: {
  conversationId: string;
  agent: AgentView;
  /** Snapshot number: a new snapshot means messages may have been missed, so refetch. */
  epoch: number;
  /** This agent's messages streamed since the snapshot. */
  streamed: readonly Message[];
  live: LiveText | undefined;
  questions: readonly PendingQuestion[];
  /** The conversation's notices: a failure of this agent's work marks the message it failed on. */
  notices?: readonly Notice[];
  onClose: () => void;
  /** The message a search opened the drawer at: marked and scrolled to. */
  highlightId?: string;
  /** Presence: keystrokes in the message box, and who else types to this agent. */
  onTyping?: (typing: boolean) => void;
  typingNote?: ReactNode;
}) {
  const t = useT();
  const locale = useLocale();
  const now = useNow(1000);
  const agentId = agent.metadata.agent_id;
  const detail = useQuery(agentDetailQuery(conversationId, agentId, epoch));
  const messages = useMemo(() => mergeMessages(detail.data?.messages ?? [], streamed), [detail.data, streamed]);
  const [confirming, setConfirming] = useState(false);
  const closeRef = useRef<HTMLButtonElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  useStickToBottom(scrollRef, contentRef, highlightId === undefined);
  useScrollToMessage(scrollRef, highlightId);

  const [strategy, setStrategy] = useState<InterventionStrategy>("steer");
  const send = useMutation({ mutationFn: (content: string) => postAgentMessage(conversationId, agentId, content, strategy) });
  const terminate = useMutation({
    mutationFn: () => terminateAgent(conversationId, agentId),
    onSuccess: () => setConfirming(false),
  });

  useEffect(() => {
    closeRef.current?.focus();
  }, [agentId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && !confirming && !e.defaultPrevented) onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [confirming, onClose]);

  const ended = agent.metadata.status === "terminated" || agent.metadata.status === "completed";
  // Its failed work stands while nothing came after it; only an idle agent can take it up again.
  const failure = currentFailure(notices, agentId, messages);

  return (
    <div className="fixed inset-0 z-30 flex justify-end">
      <button
        type="button"
        aria-label={t("common.close")}
        tabIndex={-1}
        className="absolute inset-0 bg-zinc-950/30 backdrop-blur-[1px] dark:bg-black/50"
        onClick={onClose}
      />
      <section
        role="dialog"
        aria-modal="true"
        aria-labelledby="agent-drawer-title"
        className="relative flex h-full w-[min(42rem,100vw)] flex-col border-l border-zinc-200 bg-zinc-50 shadow-2xl dark:border-zinc-700 dark:bg-zinc-950"
        data-testid="agent-drawer"
        data-agent-id={agentId}
      >
        <header className="flex items-start gap-3 border-b border-zinc-200 bg-white px-4 py-3 dark:border-zinc-800 dark:bg-zinc-900">
          <div className="min-w-0 flex-1">
            <div className="flex flex-wrap items-center gap-2">
              <h2 id="agent-drawer-title" className="truncate text-base font-semibold">
                {agent.metadata.display_name}
              </h2>
              <AgentStatusBadge status={agent.metadata.status} failed={Boolean(agent.metadata.failure)} />
            </div>
            <p className="mt-0.5 font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{agent.metadata.role_id}</p>
            {agent.metadata.task_summary ? (
              <p className="mt-1 line-clamp-2 text-xs text-zinc-600 dark:text-zinc-300" title={agent.metadata.task_summary}>
                {agent.metadata.task_summary}
              </p>
            ) : null}
            <AgentActivity agent={agent} now={now} />
            <AgentUsage tokens={agent.tokens} />
          </div>
          {agent.metadata.status === "running" || agent.metadata.status === "waiting" ? <WithdrawTaskButton conversationId={conversationId} agentId={agentId} /> : null}
          {!ended ? (
            <button type="button" className={buttonDangerGhost} onClick={() => setConfirming(true)} data-testid="agent-terminate">
              {t("drawer.terminate")}
            </button>
          ) : null}
          <button
            ref={closeRef}
            type="button"
            className={buttonGhost}
            onClick={onClose}
            aria-label={t("common.close")}
            data-testid="agent-drawer-close"
          >
            ✕
          </button>
        </header>

        <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto px-4 py-4">
          <div ref={contentRef}>
            {detail.isError ? (
              <Banner tone="error">{t("common.loadFailed", { message: detail.error.message })}</Banner>
            ) : detail.isPending && streamed.length === 0 ? (
              <p className="text-sm text-zinc-500">{t("common.loading")}</p>
            ) : (
              <ChatThread
                messages={messages}
                live={live}
                assistantName={agent.metadata.display_name}
                highlightId={highlightId}
                failure={failure ? { messageId: failure.message_id, action: agent.metadata.status === "idle" && failure.notice.retryable !== false ? <RetryButton conversationId={conversationId} agentId={agentId} testId="agent-message-retry" /> : undefined } : undefined}
                empty={<p className="text-sm text-zinc-500 dark:text-zinc-400">{t("drawer.empty")}</p>}
              />
            )}
          </div>
        </div>

        <footer className="space-y-3 border-t border-zinc-200 bg-white px-4 py-3 dark:border-zinc-800 dark:bg-zinc-900">
          <PendingApprovals conversationId={conversationId} items={pendingApprovals([agent])} />
          {questions.map((q) => (
            <QuestionAnswer key={q.question_id} conversationId={conversationId} question={q} />
          ))}
          {!ended && agent.metadata.status !== "idle" ? <StrategyPicker value={strategy} onChange={setStrategy} strategies={AGENT_STRATEGIES} testId="agent-message-strategy" /> : null}
          {!ended ? (
            <MessageBox
              label={t("drawer.messageLabel", { name: agent.metadata.display_name })}
              placeholder={t("drawer.messagePlaceholder", { name: agent.metadata.display_name })}
              sendLabel={t("live.send")}
              onSend={(content) => send.mutateAsync(content)}
              busy={send.isPending}
              error={send.error ? inputErrorText(send.error, t, locale, "message") : undefined}
              maxLength={MESSAGE_MAX}
              inputTestId="agent-message-input"
              sendTestId="agent-message-send"
              rows={1}
              onTyping={onTyping}
              below={typingNote}
            />
          ) : null}
        </footer>

        <ConfirmDialog
          open={confirming}
          title={t("drawer.terminateTitle", { name: agent.metadata.display_name })}
          confirmLabel={t("drawer.terminateConfirm")}
          busyLabel={t("drawer.terminating")}
          busy={terminate.isPending}
          error={terminate.error?.message}
          onConfirm={() => terminate.mutate()}
          onCancel={() => {
            setConfirming(false);
            terminate.reset();
          }}
          testId="agent-terminate-dialog"
        >
          {t("drawer.terminateBody")}
        </ConfirmDialog>
      </section>
    </div>
  );
}

/** The agent's share of the conversation's tokens, cached input beside input, and its cost when its calls had prices. */
function AgentUsage({ tokens }: { tokens: AgentView["tokens"] }) {
  const t = useT();
  const locale = useLocale();
  if (tokens.calls === 0) return null;
  const n = (v: number) => formatTokens(v, locale);
  return (
    <p className="mt-1 flex flex-wrap gap-x-2 text-[11px] text-zinc-500 dark:text-zinc-400" data-testid="drawer-usage">
      <span data-testid="drawer-tokens">
        {t("cost.agentUsage", { tokens: n(tokens.total_tokens), input: n(tokens.prompt_tokens), output: n(tokens.completion_tokens), calls: tokens.calls })}
      </span>
      {tokens.cached_tokens > 0 ? <span data-testid="drawer-cached">({t("cost.cached", { n: n(tokens.cached_tokens) })})</span> : null}
      {tokens.cost_usd !== null ? (
        <span className="font-semibold text-zinc-700 dark:text-zinc-200" data-testid="drawer-cost" title={t("cost.note")}>
          {t("cost.cost")}: {formatUsd(tokens.cost_usd, locale)}
        </span>
      ) : null}
    </p>
  );
}

function QuestionAnswer({ conversationId, question }: { conversationId: string; question: PendingQuestion }) {
  const t = useT();
  const locale = useLocale();
  const [answer, setAnswer] = useState("");
  const submit = useMutation({
    mutationFn: (text: string) => answerAgentQuestion(conversationId, question.agent_id, question.question_id, text),
    onSuccess: () => setAnswer(""),
  });
  const inputId = `answer-${question.question_id}`;
  return (
    <form
      className="rounded-lg border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/30"
      data-testid="pending-question"
      data-question-id={question.question_id}
      onSubmit={(e) => {
        e.preventDefault();
        if (answer.trim()) submit.mutate(answer.trim());
      }}
    >
      <p className="text-xs font-semibold text-amber-900 dark:text-amber-200">
        {t("drawer.questionTitle", { name: question.display_name })} <span className="font-mono font-normal opacity-70">· {question.question_id}</span>
      </p>
      <p className="mt-1 text-sm whitespace-pre-wrap text-zinc-800 dark:text-zinc-100" data-testid="pending-question-text">
        {question.question}
      </p>
      <label htmlFor={inputId} className="sr-only">
        {t("drawer.answerLabel")}
      </label>
      <div className="mt-2 flex items-end gap-2">
        <textarea
          id={inputId}
          className={`${inputClass} min-h-10 resize-y`}
          rows={2}
          value={answer}
          placeholder={t("drawer.answerPlaceholder")}
          onChange={(e) => setAnswer(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (answer.trim() && !submit.isPending) submit.mutate(answer.trim());
            }
          }}
          disabled={submit.isPending}
          data-testid="question-answer-input"
        />
        <button type="submit" className={`${buttonPrimary} shrink-0 whitespace-nowrap`} disabled={submit.isPending || !answer.trim()} data-testid="question-answer-submit">
          {submit.isPending ? t("live.sending") : t("drawer.answer")}
        </button>
      </div>
      {submit.error ? (
        <p role="alert" className="mt-1 text-xs font-medium text-red-600 dark:text-red-400" data-testid="question-answer-error">
          {inputErrorText(submit.error, t, locale, "answer")}
        </p>
      ) : null}
    </form>
  );
}

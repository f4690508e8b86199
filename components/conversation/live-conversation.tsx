"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useEffect, useRef, useState } from "react";
import {
  ApiError,
  conversationMessagesQuery,
  conversationQuery,
  inputErrorText,
  isWorking,
  maxLengthOf,
  postLeaderMessage,
  stopConversation,
  useConversationEvents,
} from "@/lib/client";
import { currentFailure } from "@/lib/client/notices";
import { othersOf } from "@/lib/client/presence";
import { PresenceBar, TypingIndicator } from "@/components/presence/presence-bar";
import { PostMessageBodySchema } from "@/lib/contracts/http";
import { useLocale, useT } from "@/lib/i18n";
import { ModelName } from "@/components/models/model-name";
import { DemoModelNote } from "@/components/models/demo-model-note";
import { SharedContextPanel } from "@/components/shared-context/shared-context-panel";
import { TimelineView } from "@/components/timeline/timeline-view";
import { Banner } from "@/components/ui/banner";
import { buttonDanger, cardClass } from "@/components/ui/styles";
import { AgentDrawer } from "./agent-drawer";
import { ChatThread } from "./chat-thread";
import { ConversationHeader } from "./conversation-header";
import { MessageBox } from "./message-box";
import { QueuedMessages, StrategyPicker } from "./intervention-controls";
import type { InterventionStrategy } from "@/lib/contracts/interventions";
import { NoticeBanners } from "./notice-banners";
import { PendingApprovals, pendingApprovals } from "./pending-approvals";
import { PendingQuestions } from "./pending-questions";
import { ConnectionIndicator, PhaseIndicator } from "./phase-indicator";
import { RetryButton } from "./retry-button";
import { TeamPanel } from "./team-panel";
import { useScrollToMessage } from "./use-scroll-to-message";
import { useStickToBottom } from "@/components/ui/use-stick-to-bottom";

/**
 * The live conversation page: header, banners, the leader's chat with the composer, the team
 * panel and the agent drawer. Everything comes from the SSE snapshot and the changes after it,
 * so a reload shows the same state and carries on live.
 */
/** Where a search opened the page: a message, in a sub-agent's drawer when `agent` is set. */
export interface ConversationFocus {
  message?: string;
  agent?: number;
}

export function LiveConversation({ id, focus = {} }: { id: string; focus?: ConversationFocus }) {
  const t = useT();
  const meta = useQuery(conversationQuery(id));
  // The stream opens beside the metadata's request, not after it: the person is present sooner.
  const events = useConversationEvents(id, !meta.isError);

  if (meta.isPending) return <p className="text-sm text-zinc-500">{t("common.loading")}</p>;
  if (meta.isError) {
    const notFound = meta.error instanceof ApiError && (meta.error.status === 404 || meta.error.code === "validation_failed");
    return (
      <div className="space-y-3">
        <Link href="/" className="text-sm text-indigo-600 hover:underline dark:text-indigo-300" data-testid="conversation-back">
          ← {t("convPage.back")}
        </Link>
        <Banner tone="error" testId="conversation-error">
          {notFound ? t("convPage.notFound") : t("common.loadFailed", { message: meta.error.message })}
        </Banner>
      </div>
    );
  }
  return <LiveView id={id} focus={focus} events={events} />;
}

/** The most characters of a message to the leader (the body schema's limit). */
const MESSAGE_MAX = maxLengthOf(PostMessageBodySchema.shape.content);

function LiveView({ id, focus, events }: { id: string; focus: ConversationFocus; events: ReturnType<typeof useConversationEvents> }) {
  const t = useT();
  const locale = useLocale();
  const meta = useQuery(conversationQuery(id));
  const { state, connection, presence, beats } = events;
  const others = othersOf(presence);
  const snap = state.snapshot;
  // Until the first snapshot arrives, show the stored messages so the page is never blank.
  const stored = useQuery({ ...conversationMessagesQuery(id), enabled: !snap });
  // A search hit in a sub-agent's messages opens that agent's drawer.
  const [selected, setSelected] = useState<number | null>(focus.agent ?? null);
  const leaderTarget = focus.agent === undefined ? focus.message : undefined;
  const closeDrawer = useCallback(() => setSelected(null), []);
  // Others see which agent's drawer this tab has open.
  useEffect(() => beats.drawer(selected), [beats, selected]);
  // The chat stays mounted while the timeline shows, so a half-typed message survives a switch.
  const [tab, setTab] = useState<"chat" | "timeline">("chat");
  // The chat can show one request's trace only: the person's message and everything it caused.
  const [trace, setTrace] = useState<string>("");

  // While the team works, a message is an intervention by the strategy picked (issue 32; steer by default).
  const [strategy, setStrategy] = useState<InterventionStrategy>("steer");
  const send = useMutation({ mutationFn: ({ content, strategy: picked }: { content: string; strategy?: InterventionStrategy }) => postLeaderMessage(id, content, picked) });
  const stop = useMutation({ mutationFn: () => stopConversation(id) });

  const scrollRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  useStickToBottom(scrollRef, contentRef, leaderTarget === undefined);
  useScrollToMessage(scrollRef, leaderTarget);

  const conversation = meta.data;
  if (!conversation) return null;
  const phase = snap?.conversation.phase ?? conversation.phase ?? "IDLE";
  const working = isWorking(snap);
  const allMessages = snap?.leader.messages ?? stored.data?.messages ?? [];
  const traces = personTraces(allMessages);
  const messages = trace ? allMessages.filter((m) => (m.metadata as { trace_id?: unknown } | undefined)?.trace_id === trace) : allMessages;
  const questions = snap?.questions ?? [];
  const selectedAgent = selected === null ? undefined : snap?.agents.find((a) => a.metadata.agent_id === selected);
  const notices = snap?.notices ?? [];
  // The leader's failed work stands while nothing came after it and nothing runs (Retry would be refused).
  const leaderFailure = snap && !snap.leader.busy ? currentFailure(notices, null, allMessages) : null;
  const idleAgents = new Set((snap?.agents ?? []).filter((a) => a.metadata.status === "idle").map((a) => a.metadata.agent_id));
  // The first message of a conversation is its goal.
  const field = allMessages.some((m) => m.role === "user" && (m.metadata as { message_source?: unknown } | undefined)?.message_source === "user") ? "message" : "goal";

  // The live snapshot's label is for the model it was taken with; after a change of model the metadata's key is shown.
  const modelLabel = snap && snap.conversation.model_key === conversation.model_key ? (
    <span className="font-mono" data-testid="model-label">
      {conversation.model_key === "offline" && !/offline/i.test(snap.model_label) ? `${snap.model_label} (offline)` : snap.model_label}
    </span>
  ) : (
    <span data-testid="model-label">
      <ModelName modelKey={conversation.model_key} testId="conversation-model" />
    </span>
  );

  return (
    <div className="space-y-4">
      <ConversationHeader
        conversation={conversation}
        modelLabel={modelLabel}
        indicators={
          <>
            <PhaseIndicator phase={phase} working={working} />
            <ConnectionIndicator connection={connection} />
          </>
        }
      />
      <PresenceBar others={others} />
      <DemoModelNote modelKey={conversation.model_key} />
      <NoticeBanners
        notices={notices}
        conversation={conversation}
        retryable={(agentId) => (agentId === null ? leaderFailure !== null : idleAgents.has(agentId))}
      />

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,1fr)_19rem]">
        <div className="min-w-0 space-y-2">
          <div role="tablist" aria-label={t("timeline.tabs")} className="flex gap-1 border-b border-zinc-200 dark:border-zinc-800">
            {(["chat", "timeline"] as const).map((key) => (
              <button
                key={key}
                type="button"
                role="tab"
                aria-selected={tab === key}
                onClick={() => setTab(key)}
                data-testid={`conversation-tab-${key}`}
                className={`-mb-px border-b-2 px-3 py-1.5 text-sm font-medium ${tab === key ? "border-indigo-600 text-indigo-700 dark:border-indigo-400 dark:text-indigo-300" : "border-transparent text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100"}`}
              >
                {t(`timeline.tab.${key}`)}
              </button>
            ))}
            {tab === "chat" && traces.length > 1 ? (
              <label className="ml-auto flex items-center gap-2 pb-1 text-xs text-zinc-600 dark:text-zinc-400">
                {t("timeline.traceFilter")}
                <select
                  className="max-w-[16rem] truncate rounded border border-zinc-300 bg-white px-1.5 py-0.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
                  value={trace}
                  onChange={(e) => setTrace(e.target.value)}
                  data-testid="chat-trace-filter"
                >
                  <option value="">{t("timeline.allTraces", { n: traces.length })}</option>
                  {traces.map((x) => (
                    <option key={x.trace_id} value={x.trace_id}>
                      {x.preview}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
          </div>
          {tab === "timeline" ? (
            <TimelineView conversationId={id} epoch={state.epoch} live={state.timeline} agents={snap?.agents ?? []} />
          ) : null}
          <section
            className={`${cardClass} ${tab === "chat" ? "flex" : "hidden"} h-[70vh] min-h-[26rem] flex-col lg:h-[calc(100dvh-15rem)]`}
            aria-labelledby="leader-chat-title"
            data-testid="leader-chat"
          >
            <h2 id="leader-chat-title" className="sr-only">
              {t("convPage.messages")}
            </h2>
            <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto px-4 py-4" data-testid="leader-messages">
              <div ref={contentRef}>
                <ChatThread
                  messages={messages}
                  live={state.live.leader}
                  assistantName={t("msg.role.assistant")}
                  highlightId={leaderTarget}
                  failure={leaderFailure ? { messageId: leaderFailure.message_id, action: leaderFailure.notice.retryable !== false ? <RetryButton conversationId={id} agentId={null} testId="message-retry" /> : undefined } : undefined}
                  empty={
                    <div className="px-6 py-10 text-center" data-testid="leader-messages-empty">
                      <p className="font-medium">{t("convPage.messagesEmpty")}</p>
                      <p className="mt-1 text-sm text-zinc-500 dark:text-zinc-400">{t("live.emptyHint")}</p>
                    </div>
                  }
                />
              </div>
            </div>
            <div className="space-y-2 border-t border-zinc-200 px-4 py-3 dark:border-zinc-800">
              <PendingApprovals conversationId={conversation.id} items={pendingApprovals(snap?.agents ?? [])} />
              <PendingQuestions questions={questions} onOpen={setSelected} />
              {stop.error ? <Banner tone="error">{stop.error.message}</Banner> : null}
              <QueuedMessages conversationId={conversation.id} queued={snap?.queued ?? []} />
              {working ? <StrategyPicker value={strategy} onChange={setStrategy} testId="composer-strategy" /> : null}
              <MessageBox
                label={t("live.composerLabel")}
                placeholder={t("live.composerPlaceholder")}
                sendLabel={t("live.send")}
                onSend={(content) => send.mutateAsync({ content, ...(working ? { strategy } : {}) })}
                busy={send.isPending}
                error={send.error ? inputErrorText(send.error, t, locale, field) : undefined}
                maxLength={MESSAGE_MAX}
                field={field}
                inputTestId="composer-input"
                sendTestId="composer-send"
                onTyping={(typing) => (typing ? beats.typed("leader") : beats.sent())}
                below={<TypingIndicator others={others} target="leader" />}
                extra={
                  working ? (
                    <button
                      type="button"
                      className={buttonDanger}
                      onClick={() => stop.mutate()}
                      disabled={stop.isPending}
                      data-testid="stop-button"
                    >
                      {stop.isPending ? t("live.stopping") : t("live.stop")}
                    </button>
                  ) : null
                }
              />
            </div>
          </section>
        </div>

        {/* A flex column so the shared context can move above the team while conflicts wait for the person. */}
        <div className="flex min-w-0 flex-col gap-4">
          <TeamPanel
            agents={snap?.agents ?? []}
            questions={questions}
            caps={snap?.caps ?? null}
            tokenStatistics={snap?.leader.token_statistics ?? {}}
            selectedAgentId={selected}
            onSelect={setSelected}
            loading={!snap && connection === "connecting"}
          />
          <SharedContextPanel conversationId={id} epoch={state.epoch} live={state.timeline} />
        </div>
      </div>

      {selectedAgent && snap ? (
        <AgentDrawer
          key={selectedAgent.metadata.agent_id}
          conversationId={id}
          agent={selectedAgent}
          epoch={state.epoch}
          streamed={state.agentMessages[selectedAgent.metadata.agent_id] ?? []}
          live={state.live[`agent_${selectedAgent.metadata.agent_id}`]}
          questions={questions.filter((q) => q.agent_id === selectedAgent.metadata.agent_id)}
          notices={notices}
          onClose={closeDrawer}
          highlightId={focus.agent === selectedAgent.metadata.agent_id ? focus.message : undefined}
          onTyping={(typing) => (typing ? beats.typed(selectedAgent.metadata.agent_id) : beats.sent())}
          typingNote={<TypingIndicator others={others} target={selectedAgent.metadata.agent_id} testId="agent-typing-indicator" />}
        />
      ) : null}
    </div>
  );
}

/** The traces a person started in this chat (one per message they sent), oldest first. */
function personTraces(messages: readonly { role: string; content: string | null; metadata?: unknown }[]): { trace_id: string; preview: string }[] {
  const out: { trace_id: string; preview: string }[] = [];
  for (const m of messages) {
    const meta = m.metadata as { trace_id?: unknown; message_source?: unknown } | undefined;
    if (m.role !== "user" || meta?.message_source !== "user" || typeof meta.trace_id !== "string") continue;
    if (out.some((x) => x.trace_id === meta.trace_id)) continue;
    const text = (m.content ?? "").replace(/\s+/g, " ").trim();
    out.push({ trace_id: meta.trace_id, preview: text.length > 60 ? `${text.slice(0, 60)}…` : text });
  }
  return out;
}

"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import type { ConversationListItem } from "@/lib/contracts/http";
import {
  bulkExport,
  conversationKeys,
  conversationPagesQuery,
  patchConversation,
  useDebouncedValue,
  type ConversationFilter,
} from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { ModelName } from "@/components/models/model-name";
import { Banner } from "@/components/ui/banner";
import { formatLocalTime, formatTokens } from "@/components/ui/format";
import { formatUsd } from "@/lib/models/cost";
import { buttonPrimary, buttonSecondary, cardClass, inputClass } from "@/components/ui/styles";
import { EXPORT_LIMITS } from "@/lib/export/schema";
import { ConversationImport } from "./conversation-import";
import { NewConversationForm } from "./new-conversation-form";
import { StatusBadge } from "./status-badge";
import { agentCountText } from "./agent-count";
import { presenceCountsQuery } from "@/lib/client/presence";

const PAGE_SIZE = 20;
const FILTERS: readonly ConversationFilter[] = ["active", "archived", "all"];

/**
 * The conversation index: search, status filter, "Load more" paging, the new-conversation form,
 * multi-select with "Export selected" (one zip), and "Import .zip".
 */
export function ConversationIndex() {
  const t = useT();
  const searchId = useId();
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<ConversationFilter>("active");
  const [creating, setCreating] = useState(false);
  const q = useDebouncedValue(search.trim(), 300);

  const query = useInfiniteQuery(conversationPagesQuery({ q, status, limit: PAGE_SIZE }));
  // Who has each conversation open, polled (presence is not part of the list's pages).
  const present = useQuery(presenceCountsQuery()).data?.counts ?? {};
  const pages = query.data?.pages ?? [];
  const items = pages.flatMap((p) => p.items);
  const total = pages.at(-1)?.total ?? 0;
  const problems = pages[0]?.problems ?? [];
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const shownSelected = items.filter((i) => selected.has(i.id)).map((i) => i.id);
  const exporting = useMutation({ mutationFn: (ids: string[]) => bulkExport(ids) });
  const toggleSelected = (id: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const allShownSelected = items.length > 0 && shownSelected.length === items.length;

  return (
    <div className="space-y-4">
      {/*
        One row wherever the controls fit beside a 10rem search box (a 768 px window with a
        scrollbar included); below that the controls move together under the search box, which
        then has the row to itself, and wrap among themselves only on a phone.
      */}
      <div className="flex flex-wrap items-center gap-3" data-testid="conversation-toolbar">
        <div className="min-w-40 flex-[1_1_10rem]">
          <label htmlFor={searchId} className="sr-only">
            {t("conv.search.label")}
          </label>
          <input
            id={searchId}
            type="search"
            className={inputClass}
            placeholder={t("conv.search.placeholder")}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="conversation-search"
          />
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <div
            role="group"
            aria-label={t("conv.filter.label")}
            className="inline-flex rounded-md border border-zinc-300 p-0.5 dark:border-zinc-600"
            data-testid="conversation-filter"
          >
            {FILTERS.map((f) => (
              <button
                key={f}
                type="button"
                aria-pressed={status === f}
                onClick={() => setStatus(f)}
                data-testid={`conversation-filter-${f}`}
                className={`rounded px-3 py-1 text-sm ${
                  status === f
                    ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
                    : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
                }`}
              >
                {t(`conv.filter.${f}`)}
              </button>
            ))}
          </div>
          {!creating ? (
            <button type="button" className={buttonPrimary} onClick={() => setCreating(true)} data-testid="new-conversation-open">
              + {t("conv.new.open")}
            </button>
          ) : null}
          <ConversationImport />
        </div>
      </div>

      {items.length > 0 ? (
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <label className="inline-flex items-center gap-2 text-zinc-600 dark:text-zinc-300">
            <input
              type="checkbox"
              checked={allShownSelected}
              onChange={(e) => setSelected(e.target.checked ? new Set(items.slice(0, EXPORT_LIMITS.maxConversations).map((i) => i.id)) : new Set())}
              data-testid="conversation-select-all"
            />
            {t("export.selectAll")}
          </label>
          <button
            type="button"
            className={`${buttonSecondary} px-2 py-1 text-xs`}
            disabled={shownSelected.length === 0 || shownSelected.length > EXPORT_LIMITS.maxConversations || exporting.isPending}
            onClick={() => exporting.mutate(shownSelected)}
            data-testid="conversation-export-selected"
          >
            {exporting.isPending ? t("export.exporting") : t("export.selected", { n: shownSelected.length })}
          </button>
          {exporting.error ? (
            <span role="alert" className="text-xs text-red-600 dark:text-red-400" data-testid="conversation-export-error">
              {t("export.failed", { message: exporting.error.message })}
            </span>
          ) : null}
        </div>
      ) : null}

      {creating ? <NewConversationForm onCancel={() => setCreating(false)} /> : null}

      {problems.length > 0 ? (
        <Banner tone="warning" testId="conversation-problems">
          <p className="font-medium">{t("conv.problems")}</p>
          <ul className="mt-1 list-disc pl-5">
            {problems.map((p) => (
              <li key={p.file}>
                <code className="font-mono text-xs">{p.file}</code>: {p.message}
              </li>
            ))}
          </ul>
        </Banner>
      ) : null}

      {query.isPending ? (
        <p className="text-sm text-zinc-500" data-testid="conversation-loading">
          {t("common.loading")}
        </p>
      ) : query.isError ? (
        <Banner tone="error" testId="conversation-load-error">
          {t("common.loadFailed", { message: query.error.message })}{" "}
          <button type="button" className="underline" onClick={() => void query.refetch()}>
            {t("common.retry")}
          </button>
        </Banner>
      ) : items.length === 0 ? (
        q ? (
          <p className="py-8 text-center text-sm text-zinc-500" data-testid="conversation-no-matches">
            {t("conv.noMatches")}
          </p>
        ) : status === "archived" ? (
          <p className="py-8 text-center text-sm text-zinc-500" data-testid="conversation-no-archived">
            {t("conv.noArchived")}
          </p>
        ) : (
          <EmptyState onCreate={() => setCreating(true)} />
        )
      ) : (
        <>
          <ul className={`${cardClass} divide-y divide-zinc-200 dark:divide-zinc-800`} data-testid="conversation-list">
            {items.map((item) => (
              <ConversationRow key={item.id} item={item} present={present[item.id] ?? 0} selected={selected.has(item.id)} onSelect={(on) => toggleSelected(item.id, on)} />
            ))}
          </ul>
          <div className="flex items-center justify-between text-sm text-zinc-500 dark:text-zinc-400">
            <span data-testid="conversation-count">{t("conv.showing", { shown: items.length, total })}</span>
            {query.hasNextPage ? (
              <button
                type="button"
                className={buttonSecondary}
                onClick={() => void query.fetchNextPage()}
                disabled={query.isFetchingNextPage}
                data-testid="conversation-load-more"
              >
                {query.isFetchingNextPage ? t("common.loading") : t("conv.loadMore")}
              </button>
            ) : null}
          </div>
        </>
      )}
    </div>
  );
}

function ConversationRow({ item, present, selected, onSelect }: { item: ConversationListItem; present: number; selected: boolean; onSelect: (on: boolean) => void }) {
  const t = useT();
  const locale = useLocale();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => patchConversation(item.id, { status: item.status === "active" ? "archived" : "active" }),
    onSuccess: async (conversation) => {
      queryClient.setQueryData(conversationKeys.detail(conversation.id), conversation);
      await queryClient.invalidateQueries({ queryKey: conversationKeys.lists() });
    },
  });
  return (
    <li
      className="flex flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3"
      data-testid="conversation-row"
      data-conversation-id={item.id}
    >
      <input
        type="checkbox"
        checked={selected}
        onChange={(e) => onSelect(e.target.checked)}
        aria-label={t("export.select", { title: item.title || item.id })}
        data-testid="conversation-select"
      />
      <div className="min-w-0 flex-1 basis-64">
        <Link
          href={`/conversations/${encodeURIComponent(item.id)}`}
          className="font-medium text-zinc-900 hover:text-indigo-600 hover:underline dark:text-zinc-100 dark:hover:text-indigo-300"
          data-testid="conversation-link"
          translate="no"
        >
          {item.title || t("conv.untitled")}
        </Link>
        <p className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400" title={item.project_path}>
          {item.project_path}
        </p>
      </div>
      <dl className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-300">
        <div className="flex gap-1">
          <dt className="sr-only">{t("conv.col.updated")}</dt>
          <dd>
            <time dateTime={item.updated_at} title={item.updated_at} data-testid="conversation-updated">
              {formatLocalTime(item.updated_at, locale)}
            </time>
          </dd>
        </div>
        <div>
          <dt className="sr-only">{t("conv.col.agents")}</dt>
          <dd data-testid="conversation-agent-count">{agentCountText(t, item.agent_count)}</dd>
        </div>
        <div>
          <dt className="sr-only">{t("conv.col.model")}</dt>
          <dd>
            <ModelName modelKey={item.model_key} testId="conversation-model" />
          </dd>
        </div>
        {item.token_totals ? (
          <div className="flex gap-1">
            <dt className="sr-only">{t("cost.tokens")}</dt>
            <dd data-testid="conversation-tokens">{t("team.tokens", { n: formatTokens(item.token_totals.total_tokens, locale) })}</dd>
            {item.token_totals.cost_usd !== undefined ? (
              <>
                <dt className="sr-only">{t("cost.cost")}</dt>
                <dd className="font-semibold" data-testid="conversation-cost" title={t("cost.note")}>
                  · {formatUsd(item.token_totals.cost_usd, locale)}
                </dd>
              </>
            ) : null}
          </div>
        ) : null}
        <div>
          <dt className="sr-only">{t("conv.col.runMode")}</dt>
          <dd data-testid="conversation-run-mode">{t(`runMode.${item.run_mode}`)}</dd>
        </div>
        {present > 0 ? (
          <div>
            <dt className="sr-only">{t("presence.label")}</dt>
            <dd
              className="rounded-full bg-emerald-100 px-2 py-0.5 font-medium text-emerald-800 dark:bg-emerald-900/40 dark:text-emerald-200"
              title={t("presence.countTitle", { n: present })}
              data-testid="conversation-presence"
              data-count={present}
            >
              {t("presence.count", { n: present })}
            </dd>
          </div>
        ) : null}
        <div>
          <dt className="sr-only">{t("conv.col.status")}</dt>
          <dd>
            <StatusBadge status={item.status} />
          </dd>
        </div>
      </dl>
      <button
        type="button"
        className={`${buttonSecondary} px-2 py-1 text-xs`}
        onClick={() => toggle.mutate()}
        disabled={toggle.isPending}
        data-testid={item.status === "active" ? "conversation-archive" : "conversation-unarchive"}
        title={toggle.error?.message}
      >
        {item.status === "active" ? t("conv.archive") : t("conv.unarchive")}
      </button>
      {toggle.error ? (
        <p role="alert" className="w-full text-xs text-red-600 dark:text-red-400">
          {toggle.error.message}
        </p>
      ) : null}
    </li>
  );
}

function EmptyState({ onCreate }: { onCreate: () => void }) {
  const t = useT();
  return (
    <section className={`${cardClass} px-6 py-8`} data-testid="conversation-empty">
      <h2 className="text-lg font-semibold">{t("conv.empty.title")}</h2>
      <p className="mt-2 max-w-2xl text-sm text-zinc-600 dark:text-zinc-300">{t("conv.empty.body")}</p>
      <ol className="mt-4 list-decimal space-y-1 pl-5 text-sm text-zinc-700 dark:text-zinc-200">
        <li>{t("conv.empty.step1")}</li>
        <li>{t("conv.empty.step2")}</li>
        <li>{t("conv.empty.step3")}</li>
      </ol>
      <div className="mt-5 flex flex-wrap items-center gap-4">
        <button type="button" className={buttonPrimary} onClick={onCreate} data-testid="conversation-empty-create">
          + {t("conv.new.open")}
        </button>
        <Link href="/roles" className="text-sm text-indigo-600 underline dark:text-indigo-300" data-testid="conversation-empty-roles">
          {t("conv.empty.roles")}
        </Link>
      </div>
    </section>
  );
}

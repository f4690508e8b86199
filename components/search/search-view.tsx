"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useState, type ReactNode } from "react";
import type { SearchHit } from "@/lib/contracts/http";
import { hitHref, modelListQuery, roleListQuery, searchParamsString, searchQuery, useDebouncedValue, type SearchParams } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { formatLocalTime } from "@/components/ui/format";
import { badgeClass, buttonSecondary, cardClass, inputClass } from "@/components/ui/styles";

/**
 * The history search: a search box and filters (kept in the page's URL, so a result can be
 * opened and the browser's Back returns to the same search), then the hits, each opening its
 * conversation at the message.
 */
export function SearchView({ initial }: { initial: SearchParams }) {
  const t = useT();
  const router = useRouter();
  const [params, setParams] = useState<SearchParams>(initial);
  const q = useDebouncedValue(params.q, 300);
  const effective = useMemo(() => ({ ...params, q }), [params, q]);
  const results = useInfiniteQuery(searchQuery(effective));
  const roles = useQuery(roleListQuery());
  const models = useQuery(modelListQuery());

  useEffect(() => {
    const qs = searchParamsString(effective);
    router.replace(qs ? `/search?${qs}` : "/search", { scroll: false });
  }, [effective, router]);

  const set = (key: keyof SearchParams) => (value: string) => setParams((p) => ({ ...p, [key]: value }));
  const hits = results.data?.pages.flatMap((p) => p.hits) ?? [];
  const indexing = results.data?.pages.some((p) => p.indexing) ?? false;
  const searched = effective.q.trim() !== "";

  return (
    <div className="space-y-4">
      <form className={`${cardClass} space-y-3 p-4`} role="search" onSubmit={(e) => e.preventDefault()} data-testid="search-form">
        <Field label={t("search.query.label")}>
          {(id) => (
            <input
              id={id}
              type="search"
              className={inputClass}
              placeholder={t("search.query.placeholder")}
              value={params.q}
              onChange={(e) => set("q")(e.target.value)}
              maxLength={500}
              autoFocus
              data-testid="search-input"
            />
          )}
        </Field>
        <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
          <Field label={t("search.filter.status")}>
            {(id) => (
              <select id={id} className={inputClass} value={params.status} onChange={(e) => set("status")(e.target.value)} data-testid="search-filter-status">
                <option value="">{t("search.any")}</option>
                <option value="active">{t("status.active")}</option>
                <option value="archived">{t("status.archived")}</option>
              </select>
            )}
          </Field>
          <Field label={t("search.filter.agent")}>
            {(id) => (
              <input
                id={id}
                className={inputClass}
                placeholder={t("search.filter.agentPlaceholder")}
                value={params.agent}
                onChange={(e) => set("agent")(e.target.value)}
                data-testid="search-filter-agent"
              />
            )}
          </Field>
          <Field label={t("search.filter.role")}>
            {(id) => (
              <select id={id} className={inputClass} value={params.role} onChange={(e) => set("role")(e.target.value)} data-testid="search-filter-role">
                <option value="">{t("search.any")}</option>
                {(roles.data ?? []).map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.kind === "role" ? `${r.name} (${r.id})` : r.id}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={t("search.filter.model")}>
            {(id) => (
              <select id={id} className={inputClass} value={params.model} onChange={(e) => set("model")(e.target.value)} data-testid="search-filter-model">
                <option value="">{t("search.any")}</option>
                {(models.data?.models ?? []).map((m) => (
                  <option key={m.key} value={m.key}>
                    {m.key}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={t("search.filter.messageRole")}>
            {(id) => (
              <select id={id} className={inputClass} value={params.message_role} onChange={(e) => set("message_role")(e.target.value)} data-testid="search-filter-message-role">
                <option value="">{t("search.any")}</option>
                <option value="user">{t("search.messageRole.user")}</option>
                <option value="assistant">{t("search.messageRole.assistant")}</option>
                <option value="tool">{t("search.messageRole.tool")}</option>
              </select>
            )}
          </Field>
          <Field label={t("search.filter.from")}>
            {(id) => <input id={id} type="date" className={inputClass} value={params.from} onChange={(e) => set("from")(e.target.value)} data-testid="search-filter-from" />}
          </Field>
          <Field label={t("search.filter.to")}>
            {(id) => <input id={id} type="date" className={inputClass} value={params.to} onChange={(e) => set("to")(e.target.value)} data-testid="search-filter-to" />}
          </Field>
        </div>
      </form>

      {indexing ? <Banner tone="info" testId="search-indexing">{t("search.indexing")}</Banner> : null}
      {results.isError ? <Banner tone="error" testId="search-error">{results.error.message}</Banner> : null}
      {!searched ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400" data-testid="search-hint">
          {t("search.hint")}
        </p>
      ) : results.isPending ? (
        <p className="text-sm text-zinc-500">{t("common.loading")}</p>
      ) : hits.length === 0 && !results.isError ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400" data-testid="search-empty">
          {t("search.empty")}
        </p>
      ) : (
        <ol className="space-y-2" data-testid="search-results">
          {hits.map((hit) => (
            <HitRow key={`${hit.conversation_id}:${hit.agent_id ?? 0}:${hit.message_index}`} hit={hit} />
          ))}
        </ol>
      )}
      {results.hasNextPage ? (
        <button type="button" className={buttonSecondary} onClick={() => void results.fetchNextPage()} disabled={results.isFetchingNextPage} data-testid="search-more">
          {results.isFetchingNextPage ? t("common.loading") : t("search.more")}
        </button>
      ) : null}
    </div>
  );
}

function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-xs font-medium text-zinc-600 dark:text-zinc-400">
        {label}
      </label>
      {children(id)}
    </div>
  );
}

function HitRow({ hit }: { hit: SearchHit }) {
  const t = useT();
  const locale = useLocale();
  return (
    <li data-testid="search-hit" data-conversation-id={hit.conversation_id} data-agent-id={hit.agent_id ?? ""} data-message-id={hit.message_id ?? ""}>
      <Link href={hitHref(hit)} className={`${cardClass} block px-4 py-3 hover:border-indigo-300 dark:hover:border-indigo-700`} data-testid="search-hit-link">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
          <span className="text-sm font-medium text-zinc-900 dark:text-zinc-100" data-testid="search-hit-title">
            {hit.conversation_title}
          </span>
          <span aria-hidden>·</span>
          <span data-testid="search-hit-agent">{hit.agent_id === null ? t("msg.role.assistant") : hit.agent_display_name}</span>
          {hit.role_id ? <span className={`${badgeClass} font-mono`}>{hit.role_id}</span> : null}
          <span className={badgeClass}>{t(`search.messageRole.${hit.message_role === "system" ? "assistant" : hit.message_role}`)}</span>
          {hit.conversation_status === "archived" ? <span className={badgeClass}>{t("status.archived")}</span> : null}
          <span className="ml-auto">{formatLocalTime(hit.created_at, locale)}</span>
        </div>
        {/* Segments are rendered as text: a message's own markup is never interpreted. */}
        {/* A message's own words around the match, in the language it was written in: data. */}
        <p className="mt-1 text-sm break-words text-zinc-700 dark:text-zinc-300" data-testid="search-hit-snippet" translate="no">
          {hit.snippet.map((s, i) =>
            s.hit ? (
              <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-zinc-900 dark:bg-amber-500/40 dark:text-zinc-50">
                {s.text}
              </mark>
            ) : (
              <span key={i}>{s.text}</span>
            ),
          )}
        </p>
      </Link>
    </li>
  );
}

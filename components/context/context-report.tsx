"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { z } from "zod";
import { apiFetch } from "@/lib/client";
import { SliceReportSchema, type ContextSummary, type LineSliceReport, type SceneSliceReport, type SliceLine, type SliceReport } from "@/lib/context/report";
import { useLocale, useT, type MessageKey } from "@/lib/i18n";
import { contextSummaryOf, formatRanges, sliceUsage } from "./context-view";

const ContextResponseSchema = z.object({ message_id: z.string(), report: SliceReportSchema });

const WEIGHT_KEY: Record<SceneSliceReport["items"][number]["weight"], MessageKey> = {
  flow: "ctx.weight.flow",
  negotiation: "ctx.weight.negotiation",
  instruction: "ctx.weight.instruction",
  system: "ctx.weight.system",
};

function useNumber(): (n: number) => string {
  const locale = useLocale();
  const format = new Intl.NumberFormat(locale);
  return (n) => format.format(n);
}

/**
 * The "Context" disclosure of one assistant message: what its model call saw, slice by slice
 * (seed 003 §4.2). The message keeps only the totals; the whole report is fetched when opened.
 * Renders nothing for a message saved without one (older runs).
 */
export function ContextReportDisclosure({ metadata, messageId }: { metadata: unknown; messageId: string | undefined }) {
  const summary = contextSummaryOf(metadata);
  return summary && messageId ? <ContextReport summary={summary} messageId={messageId} /> : null;
}

/** The totals of a call, folded to one line; opened, the whole report of that call. */
function ContextReport({ summary, messageId }: { summary: ContextSummary; messageId: string }) {
  const t = useT();
  const num = useNumber();
  const params = useParams<{ id: string }>();
  const [open, setOpen] = useState(false);
  const full = useQuery({
    queryKey: ["context-report", params.id, messageId],
    queryFn: () => apiFetch(`/api/conversations/${params.id}/context/${messageId}`, ContextResponseSchema),
    enabled: open && Boolean(params.id),
    staleTime: Infinity,
  });
  const scene = summary.scene;
  const anyOver = [summary.global, summary.private, scene].some((s) => sliceUsage(s.used, s.budget, s.over_budget).over);
  return (
    <details
      className="group rounded-md border border-zinc-200 bg-zinc-50/60 text-[11px] text-zinc-600 dark:border-zinc-700/80 dark:bg-zinc-800/30 dark:text-zinc-400"
      data-testid="context-report"
      data-scene-used={scene.used}
      data-scene-budget={scene.budget}
      data-total-tokens={summary.total_tokens}
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary className="flex cursor-pointer list-none flex-wrap items-baseline gap-x-2 px-2.5 py-1 select-none" data-testid="context-report-toggle">
        <span aria-hidden className="text-zinc-400 transition-transform group-open:rotate-90">
          ▸
        </span>
        <span className="font-medium text-zinc-700 dark:text-zinc-300">{t("ctx.title")}</span>
        <span className="tabular-nums">{t("ctx.totalTokens", { n: num(summary.total_tokens) })}</span>
        <span className="tabular-nums text-zinc-500 dark:text-zinc-500">
          {t("ctx.sceneShort", { used: num(scene.used), budget: num(scene.budget) })}
        </span>
        {scene.dropped_count > 0 ? (
          <span className="text-zinc-500">{t("ctx.droppedShort", { n: scene.dropped_count })}</span>
        ) : null}
        {anyOver ? <span className="font-semibold text-red-600 dark:text-red-400">{t("ctx.overBudget")}</span> : null}
      </summary>
      {full.data ? (
        <ContextReportBody report={full.data.report} />
      ) : (
        <p className="border-t border-zinc-200 px-2.5 py-2 text-zinc-500 dark:border-zinc-700/80" data-testid="context-report-loading">
          {full.isError ? full.error.message : t("common.loading")}
        </p>
      )}
    </details>
  );
}

/** The whole report of one call: tokenizer, and each slice with its lines or messages. */
function ContextReportBody({ report }: { report: SliceReport }) {
  const t = useT();
  const num = useNumber();
  return (
      <div className="space-y-3 border-t border-zinc-200 px-2.5 py-2 dark:border-zinc-700/80">
        <p className="flex flex-wrap gap-x-3 gap-y-0.5 text-zinc-500 dark:text-zinc-400">
          <span>
            {t("ctx.tokenizer")} <span className="font-mono text-zinc-700 dark:text-zinc-300" data-testid="context-tokenizer">{report.tokenizer}</span>
          </span>
          <span className="tabular-nums">{t("ctx.systemTokens", { n: num(report.system_tokens) })}</span>
          <span className="tabular-nums">{t(report.kind === "leader" ? "ctx.kind.leader" : "ctx.kind.agent")}</span>
        </p>
        <LineSlice name="global" slice={report.global} />
        <LineSlice name="private" slice={report.private} />
        <SceneSlice slice={report.scene} />
      </div>
  );
}

function SliceHeader({ name, used, budget, overBudget }: { name: "global" | "private" | "scene"; used: number; budget: number; overBudget: boolean }) {
  const t = useT();
  const num = useNumber();
  const usage = sliceUsage(used, budget, overBudget);
  return (
    <div data-testid="context-slice" data-slice={name} data-used={used} data-budget={budget} data-over={usage.over}>
      <div className="flex items-baseline justify-between gap-2">
        <span className="font-semibold text-zinc-700 dark:text-zinc-200">{t(`ctx.slice.${name}`)}</span>
        <span className={`tabular-nums ${usage.over ? "font-semibold text-red-600 dark:text-red-400" : ""}`}>
          {t("ctx.usedOfBudget", { used: num(used), budget: num(budget) })}
          {usage.over ? ` · ${t("ctx.overBudget")}` : ""}
        </span>
      </div>
      <div
        className="mt-0.5 h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-700/70"
        role="meter"
        aria-label={t(`ctx.slice.${name}`)}
        aria-valuemin={0}
        aria-valuemax={budget}
        aria-valuenow={used}
      >
        <div
          className={`h-full rounded-full ${usage.over ? "bg-red-500 dark:bg-red-500" : "bg-indigo-500 dark:bg-indigo-400"}`}
          style={{ width: `${usage.percent}%` }}
        />
      </div>
    </div>
  );
}

function LineSlice({ name, slice }: { name: "global" | "private"; slice: LineSliceReport }) {
  const t = useT();
  // Recalled long-term memory is its own part of the global slice, each line with its source.
  const memory = slice.lines.filter((l) => l.memory);
  const lines = slice.lines.filter((l) => !l.memory);
  return (
    <section className="space-y-1">
      <SliceHeader name={name} used={slice.used} budget={slice.budget} overBudget={slice.over_budget} />
      {slice.lines.length === 0 ? (
        <p className="text-zinc-400 italic dark:text-zinc-500">{t("ctx.empty")}</p>
      ) : (
        <ul className="space-y-0.5">
          {lines.map((line, i) => (
            <Line key={`${line.label}-${i}`} line={line} />
          ))}
        </ul>
      )}
      {memory.length > 0 ? (
        <div className="space-y-0.5 rounded border border-zinc-200 px-2 py-1 dark:border-zinc-700/70" data-testid="context-memory">
          <p className="font-medium text-zinc-700 dark:text-zinc-300">{t("ctx.memory.title")}</p>
          <ul className="space-y-0.5">
            {memory.map((line, i) => (
              <MemoryLine key={`${line.memory!.entry_id}-${i}`} line={line} />
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}

const LEVEL_KEY: Record<string, MessageKey> = { public: "ctx.memory.level.public", project: "ctx.memory.level.project", restricted: "ctx.memory.level.restricted" };

/** A recalled memory entry: kept or left out, its level, its text's preview, and a link to its source conversation. */
function MemoryLine({ line }: { line: SliceLine }) {
  const t = useT();
  const num = useNumber();
  const m = line.memory!;
  const levelKey = LEVEL_KEY[m.level];
  return (
    <li
      className={`flex flex-wrap items-baseline gap-x-1.5 ${line.included ? "" : "text-zinc-400 line-through decoration-zinc-400/60 dark:text-zinc-500"}`}
      data-testid="context-memory-line"
      data-entry-id={m.entry_id}
      data-level={m.level}
      data-included={line.included}
    >
      <span aria-hidden className={line.included ? "text-emerald-600 dark:text-emerald-400" : "text-zinc-400"}>
        {line.included ? "✓" : "✕"}
      </span>
      <span className="sr-only">{line.included ? t("ctx.included") : t("ctx.dropped")}</span>
      <span className="shrink-0 rounded bg-zinc-100 px-1 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400">{levelKey ? t(levelKey) : m.level}</span>
      <span className="min-w-0 flex-1 truncate text-zinc-700 dark:text-zinc-300" title={line.preview}>
        {line.preview}
      </span>
      <span className="shrink-0 text-zinc-500" data-testid="context-memory-source">
        {m.conversation_id ? (
          <Link className="underline decoration-dotted hover:text-indigo-600" href={`/conversations/${encodeURIComponent(m.conversation_id)}`}>
            {t("ctx.memory.from", { title: m.title ?? m.conversation_id })}
          </Link>
        ) : (
          t("ctx.memory.byPerson")
        )}
      </span>
      <span className="shrink-0 tabular-nums">{num(line.tokens)}</span>
    </li>
  );
}

function Line({ line }: { line: SliceLine }) {
  const t = useT();
  const num = useNumber();
  return (
    <li
      className={`flex items-baseline gap-1.5 ${line.included ? "" : "text-zinc-400 line-through decoration-zinc-400/60 dark:text-zinc-500"}`}
      data-testid="context-line"
      data-included={line.included}
    >
      <span aria-hidden className={line.included ? "text-emerald-600 dark:text-emerald-400" : "text-zinc-400"}>
        {line.included ? "✓" : "✕"}
      </span>
      <span className="sr-only">{line.included ? t("ctx.included") : t("ctx.dropped")}</span>
      <span className="shrink-0 font-mono text-zinc-500 dark:text-zinc-400">{line.label}</span>
      <span className="min-w-0 flex-1 truncate text-zinc-700 dark:text-zinc-300" title={line.preview}>
        {line.preview}
      </span>
      {line.truncated ? <span className="shrink-0 text-amber-700 dark:text-amber-400">{t("ctx.truncated")}</span> : null}
      <span className="shrink-0 tabular-nums">{num(line.tokens)}</span>
    </li>
  );
}

function SceneSlice({ slice }: { slice: SceneSliceReport }) {
  const t = useT();
  const num = useNumber();
  return (
    <section className="space-y-1">
      <SliceHeader name="scene" used={slice.used} budget={slice.budget} overBudget={slice.over_budget} />
      <p className="flex flex-wrap gap-x-3 gap-y-0.5">
        <span data-testid="context-scene-sent">{t("ctx.scene.sent", { n: slice.items.length })}</span>
        <span data-testid="context-scene-dropped">
          {slice.dropped_count > 0
            ? t("ctx.scene.dropped", { n: slice.dropped_count, ranges: formatRanges(slice.dropped_ranges) })
            : t("ctx.scene.noneDropped")}
        </span>
        {slice.placeholders > 0 ? <span>{t("ctx.scene.placeholders", { n: slice.placeholders })}</span> : null}
        {slice.instruction_index !== null ? <span>{t("ctx.scene.instruction", { n: slice.instruction_index })}</span> : null}
      </p>
      {slice.items.length > 0 ? (
        <details className="rounded border border-zinc-200 dark:border-zinc-700/70">
          <summary className="cursor-pointer px-2 py-0.5 select-none">{t("ctx.scene.items")}</summary>
          <ol className="max-h-56 space-y-0.5 overflow-y-auto px-2 py-1">
            {slice.items.map((item) => (
              <li key={item.index} className="flex items-baseline gap-1.5">
                <span className="w-9 shrink-0 text-right font-mono text-zinc-400 tabular-nums">#{item.index}</span>
                <span className="w-16 shrink-0 font-mono text-zinc-500 dark:text-zinc-400">{item.role}</span>
                <span
                  className={`shrink-0 rounded px-1 ${item.weight === "instruction" ? "bg-indigo-100 text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200" : "bg-zinc-100 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400"}`}
                >
                  {t(WEIGHT_KEY[item.weight])}
                </span>
                <span className="min-w-0 flex-1 truncate text-zinc-700 dark:text-zinc-300" title={item.preview}>
                  {item.preview}
                </span>
                {item.truncated ? <span className="shrink-0 text-amber-700 dark:text-amber-400">{t("ctx.truncated")}</span> : null}
                <span className="shrink-0 tabular-nums">{num(item.tokens)}</span>
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </section>
  );
}

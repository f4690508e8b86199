"use client";

import type { TokenCounts } from "@/lib/contracts/events";
import type { AgentView } from "@/lib/contracts/events";
import { normalizeTokenStatistics, tokenCountsOf, type UsageBucket } from "@/lib/models/usage";
import { useLocale, useT } from "@/lib/i18n";
import { ModelName } from "@/components/models/model-name";
import { formatTokens } from "@/components/ui/format";
import { formatUsd } from "@/lib/models/cost";
import { cardClass } from "@/components/ui/styles";

/**
 * The conversation's token usage and cost: totals (input with its cached part, output, calls,
 * cost), then per agent and per model. Cost appears only where calls had prices (recorded with
 * each call); without any, tokens only and a line saying how to add prices.
 */
export function TokenStatistics({ stats, agents }: { stats: Record<string, unknown>; agents: readonly AgentView[] }) {
  const t = useT();
  const locale = useLocale();
  const normalized = normalizeTokenStatistics(stats);
  const total = tokenCountsOf(normalized.total);
  const priced = total.cost_usd !== null;
  const names = new Map(agents.map((a) => [`agent_${a.metadata.agent_id}`, a.metadata.display_name]));
  const byAgent = Object.entries(normalized.by_agent).sort(([a], [b]) => (a === "leader" ? -1 : b === "leader" ? 1 : a.localeCompare(b, "en", { numeric: true })));
  const byModel = Object.entries(normalized.by_model).sort(([a], [b]) => a.localeCompare(b, "en"));
  return (
    <section className={`${cardClass} p-3 text-xs`} data-testid="token-stats" aria-labelledby="token-stats-title">
      <h2 id="token-stats-title" className="mb-2 px-1 text-sm font-semibold">
        {t("tokens.title")}
      </h2>
      <dl className="grid grid-cols-3 gap-2 px-1">
        <Stat label={t("tokens.total")} value={formatTokens(total.total_tokens, locale)} testId="token-total" />
        <Stat label={t("cost.input")} value={formatTokens(total.prompt_tokens, locale)} testId="token-input">
          {total.cached_tokens > 0 ? (
            <span className="block text-[11px] font-normal text-zinc-500 dark:text-zinc-400" data-testid="token-cached">
              {t("cost.cached", { n: formatTokens(total.cached_tokens, locale) })}
            </span>
          ) : null}
        </Stat>
        <Stat label={t("cost.output")} value={formatTokens(total.completion_tokens, locale)} testId="token-output" />
        <Stat label={t("tokens.calls")} value={String(total.calls)} testId="token-calls" />
        {priced ? <Stat label={t("cost.cost")} value={formatUsd(total.cost_usd ?? 0, locale)} testId="token-cost" /> : null}
      </dl>
      {byAgent.length > 0 ? (
        <UsageTable caption={t("cost.byAgent")} nameHeader={t("tokens.agent")} priced={priced} testId="token-row" keyAttribute="data-agent-key"
          rows={byAgent.map(([key, bucket]) => ({ key, bucket, name: key === "leader" ? t("msg.role.assistant") : (names.get(key) ?? key) }))} />
      ) : null}
      {byModel.length > 0 ? (
        <UsageTable caption={t("cost.byModel")} nameHeader={t("cost.model")} priced={priced} testId="model-token-row" keyAttribute="data-model-key"
          rows={byModel.map(([key, bucket]) => ({ key, bucket, name: <ModelName modelKey={key} /> }))} />
      ) : null}
      {priced ? (
        <p className="mt-2 px-1 text-[11px] text-zinc-500 dark:text-zinc-400" data-testid="token-cost-note">
          {t("cost.note")}
          {total.priced_calls < total.calls ? (
            <span className="block" data-testid="token-unpriced">
              {t("cost.unpriced", { n: total.calls - total.priced_calls, total: total.calls })}
            </span>
          ) : null}
        </p>
      ) : total.calls > 0 ? (
        <p className="mt-2 px-1 text-[11px] text-zinc-500 dark:text-zinc-400" data-testid="token-no-prices">
          {t("cost.noPrices")}
        </p>
      ) : null}
    </section>
  );
}

/** One table of usage rows (per agent or per model); the cost column only when the conversation has cost. */
function UsageTable({
  caption,
  nameHeader,
  rows,
  priced,
  testId,
  keyAttribute,
}: {
  caption: string;
  nameHeader: string;
  rows: Array<{ key: string; bucket: UsageBucket; name: React.ReactNode }>;
  priced: boolean;
  testId: string;
  keyAttribute: "data-agent-key" | "data-model-key";
}) {
  const t = useT();
  const locale = useLocale();
  return (
    <table className="mt-3 w-full table-fixed">
      <caption className="px-1 pb-1 text-left text-[11px] font-semibold text-zinc-500 dark:text-zinc-400">{caption}</caption>
      <thead className="sr-only">
        <tr>
          <th>{nameHeader}</th>
          <th>{t("tokens.total")}</th>
          {priced ? <th>{t("cost.cost")}</th> : null}
          <th>{t("tokens.calls")}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ key, bucket, name }) => {
          const counts: TokenCounts = tokenCountsOf(bucket);
          return (
            <tr key={key} className="border-t border-zinc-100 dark:border-zinc-800" data-testid={testId} {...{ [keyAttribute]: key }}>
              <td className="truncate py-1 pl-1 text-zinc-700 dark:text-zinc-300">{name}</td>
              <td className="py-1 text-right font-mono tabular-nums" data-testid="usage-tokens">
                {formatTokens(counts.total_tokens, locale)}
              </td>
              {priced ? (
                <td className="py-1 text-right font-mono tabular-nums" data-testid="usage-cost">
                  {counts.cost_usd === null ? "—" : formatUsd(counts.cost_usd, locale)}
                </td>
              ) : null}
              <td className="py-1 pr-1 text-right text-zinc-500 tabular-nums dark:text-zinc-400">{t("tokens.callsN", { n: counts.calls })}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Stat({ label, value, testId, children }: { label: string; value: string; testId?: string; children?: React.ReactNode }) {
  return (
    <div>
      <dt className="text-[11px] text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className="font-mono text-sm font-semibold tabular-nums">
        <span data-testid={testId}>{value}</span>
        {children}
      </dd>
    </div>
  );
}

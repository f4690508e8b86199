"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { healthQuery, modelListQuery } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { formatLocalTime } from "@/components/ui/format";
import { badgeClass, cardClass } from "@/components/ui/styles";
import { McpServersSection } from "./mcp-servers";
import { GatewaySection } from "./gateway-section";
import { KnowledgeSection } from "./knowledge-section";
import { MemoryRedactionSection } from "./memory-redaction-section";

/** Server facts (/api/health), the model registry (/api/models) and the MCP servers (/api/mcp/servers). */
export function SettingsView() {
  const t = useT();
  const locale = useLocale();
  const health = useQuery(healthQuery());
  const models = useQuery(modelListQuery());

  return (
    <div className="space-y-6">
      <section className={`${cardClass} p-5`} aria-labelledby="settings-server" data-testid="settings-server">
        <h2 id="settings-server" className="text-lg font-semibold">
          {t("settings.server")}
        </h2>
        {health.isPending ? (
          <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
        ) : health.isError ? (
          <div className="mt-2">
            <Banner tone="error">{t("common.loadFailed", { message: health.error.message })}</Banner>
          </div>
        ) : (
          <>
            <dl className="mt-3 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2">
              <Row label={t("settings.dataFolder")} wide>
                <code className="font-mono text-xs break-all" data-testid="settings-data-root">
                  {health.data.data_root}
                </code>
              </Row>
              <Row label={t("settings.version")}>
                <span data-testid="settings-version">{health.data.version}</span>
              </Row>
              <Row label={t("settings.pid")}>
                <span className="font-mono" data-testid="settings-pid">
                  {health.data.pid}
                </span>
              </Row>
              <Row label={t("settings.started")}>
                <time dateTime={health.data.started_at} title={health.data.started_at}>
                  {formatLocalTime(health.data.started_at, locale)}
                </time>
              </Row>
            </dl>
            <h3 className="mt-5 text-sm font-semibold">{t("settings.problems")}</h3>
            {health.data.problems.length === 0 ? (
              <p className="mt-1 text-sm text-emerald-700 dark:text-emerald-400" data-testid="settings-no-problems">
                {t("settings.noProblems")}
              </p>
            ) : (
              <div className="mt-1">
                <Banner tone="warning" testId="settings-problems">
                  <ul className="list-disc pl-5">
                    {health.data.problems.map((p) => (
                      <li key={`${p.file}:${p.message}`}>
                        <code className="font-mono text-xs">{p.file}</code>: {p.message}
                      </li>
                    ))}
                  </ul>
                </Banner>
              </div>
            )}
          </>
        )}
      </section>

      <section className={`${cardClass} p-5`} aria-labelledby="settings-models" data-testid="settings-models">
        <h2 id="settings-models" className="text-lg font-semibold">
          {t("settings.models")}
        </h2>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("settings.modelsHint")}</p>
        {models.isPending ? (
          <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
        ) : models.isError ? (
          <div className="mt-2">
            <Banner tone="error">{t("common.loadFailed", { message: models.error.message })}</Banner>
          </div>
        ) : (
          <div className="mt-3 overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="text-xs text-zinc-500 dark:text-zinc-400">
                <tr>
                  <th className="py-1.5 pr-4 font-medium">{t("settings.model.key")}</th>
                  <th className="py-1.5 pr-4 font-medium">{t("settings.model.label")}</th>
                  <th className="py-1.5 pr-4 font-medium">{t("settings.model.provider")}</th>
                  <th className="py-1.5 font-medium">{t("settings.model.state")}</th>
                </tr>
              </thead>
              <tbody>
                {models.data.models.map((m) => (
                  <tr key={m.key} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="settings-model-row" data-model-key={m.key}>
                    <td className="py-1.5 pr-4 font-mono text-xs">
                      {m.key}
                      {m.key === models.data.default_key ? (
                        <span className={`${badgeClass} ml-2`}>{t("settings.model.default")}</span>
                      ) : null}
                    </td>
                    <td className="py-1.5 pr-4">{m.label}</td>
                    <td className="py-1.5 pr-4 font-mono text-xs">{m.provider_model}</td>
                    <td className="py-1.5">
                      {m.offline ? (
                        <span className={`${badgeClass} bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200`}>
                          {t("settings.model.offline")}
                        </span>
                      ) : m.configured ? (
                        <span className={`${badgeClass} bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200`}>
                          {t("settings.model.configured")}
                        </span>
                      ) : (
                        <span className={`${badgeClass} bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200`}>
                          {t("settings.model.notConfigured")}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <MemoryRedactionSection />
      <McpServersSection />
      <GatewaySection />
      <KnowledgeSection />
    </div>
  );
}

function Row({ label, children, wide }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? "sm:col-span-2" : undefined}>
      <dt className="text-xs font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5">{children}</dd>
    </div>
  );
}

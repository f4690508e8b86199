"use client";

import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { healthQuery } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { formatLocalTime } from "@/components/ui/format";
import { cardClass } from "@/components/ui/styles";
import { McpServersSection } from "./mcp-servers";
import { ModelsSection } from "./models-section";
import { GatewaySection } from "./gateway-section";
import { KnowledgeSection } from "./knowledge-section";
import { MemoryRedactionSection } from "./memory-redaction-section";

/** Server facts (/api/health), the models of models.json, memory redaction, the MCP servers, the gateway and knowledge. */
export function SettingsView() {
  const t = useT();
  const locale = useLocale();
  const health = useQuery(healthQuery());

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

      <ModelsSection />
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

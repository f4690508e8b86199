"use client";

import { useQuery } from "@tanstack/react-query";
import { gatewayQuery } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { formatLocalTime } from "@/components/ui/format";
import { badgeClass, cardClass } from "@/components/ui/styles";

/** The protocol gateway (gateway.json, read-only): each source, its tools with their effect, its warnings and last error. */
export function GatewaySection() {
  const t = useT();
  const locale = useLocale();
  const gateway = useQuery(gatewayQuery());
  return (
    <section className={`${cardClass} p-5`} aria-labelledby="settings-gateway" data-testid="settings-gateway">
      <h2 id="settings-gateway" className="text-lg font-semibold">
        {t("settings.gateway")}
      </h2>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("settings.gatewayHint")}</p>
      {gateway.isPending ? (
        <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
      ) : gateway.isError ? (
        <div className="mt-2">
          <Banner tone="error">{t("common.loadFailed", { message: gateway.error.message })}</Banner>
        </div>
      ) : !gateway.data.present ? (
        <p className="mt-2 text-sm text-zinc-500" data-testid="settings-gateway-none">
          {t("settings.gateway.none")}
        </p>
      ) : gateway.data.error ? (
        <div className="mt-2">
          <Banner tone="error" testId="settings-gateway-file-error">
            {t("settings.gateway.fileError", { message: gateway.data.error })}
          </Banner>
        </div>
      ) : gateway.data.sources.length === 0 ? (
        <p className="mt-2 text-sm text-zinc-500">{t("settings.gateway.empty")}</p>
      ) : (
        <ul className="mt-3 space-y-4">
          {gateway.data.sources.map((s) => (
            <li key={s.name} className="rounded border border-zinc-200 p-3 dark:border-zinc-700" data-testid="settings-gateway-source" data-source={s.name}>
              <h3 className="font-mono text-sm font-semibold">{s.name}</h3>
              <dl className="mt-1 grid gap-x-4 gap-y-1 text-xs sm:grid-cols-[auto_1fr]">
                <dt className="text-zinc-500">{t("settings.gateway.baseUrl")}</dt>
                <dd className="font-mono break-all">{s.base_url ?? "—"}</dd>
                <dt className="text-zinc-500">{t("settings.gateway.headers")}</dt>
                <dd className="font-mono">{s.header_names.length ? s.header_names.join(", ") : "—"}</dd>
              </dl>
              {s.error ? (
                <div className="mt-2">
                  <Banner tone="error" testId="settings-gateway-source-error">
                    {t("settings.gateway.error", { message: s.error })}
                  </Banner>
                </div>
              ) : null}
              {s.last_call_error ? (
                <p className="mt-2 text-xs text-amber-700 dark:text-amber-400" data-testid="settings-gateway-last-error">
                  {t("settings.gateway.lastError", { tool: s.last_call_error.tool, at: formatLocalTime(s.last_call_error.at, locale), message: s.last_call_error.message })}
                </p>
              ) : null}
              <h4 className="mt-2 text-xs font-medium text-zinc-500">{t("settings.gateway.tools", { n: s.tools.length })}</h4>
              {s.tools.length === 0 ? (
                <p className="text-xs text-zinc-500">{t("settings.gateway.noTools")}</p>
              ) : (
                <ul className="mt-1 space-y-1 text-xs">
                  {s.tools.map((tool) => (
                    <li key={tool.name} data-testid="settings-gateway-tool" data-tool={tool.name}>
                      <code className="font-mono">{tool.name}</code>{" "}
                      <span className={`${badgeClass} ${tool.effect === "read" ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200" : "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200"}`}>
                        {t(tool.effect === "read" ? "settings.gateway.effect.read" : "settings.gateway.effect.write")}
                      </span>{" "}
                      <span className="font-mono text-zinc-500">
                        {tool.method} {tool.path}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              {s.warnings.length ? (
                <details className="mt-2 text-xs">
                  <summary className="cursor-pointer text-amber-700 dark:text-amber-400">
                    {t("settings.gateway.warnings")} ({s.warnings.length})
                  </summary>
                  <ul className="mt-1 list-disc pl-5" data-testid="settings-gateway-warnings">
                    {s.warnings.map((w) => (
                      <li key={w}>{w}</li>
                    ))}
                  </ul>
                </details>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

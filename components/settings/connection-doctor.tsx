"use client";

import { useMutation } from "@tanstack/react-query";
import { runModelDoctor } from "@/lib/client";
import type { DoctorReport } from "@/lib/contracts/http";
import { en, useT, type MessageKey } from "@/lib/i18n";
import { hasOwnKey } from "@/lib/own";
import { Banner } from "@/components/ui/banner";
import { buttonSecondary } from "@/components/ui/styles";

/** Props of {@link ConnectionDoctor}. */
export interface ConnectionDoctorProps {
  /** The registry key of the entry to test (not the built-in `offline`, which has no connection). */
  modelKey: string;
}

const MARKS = { green: "✔", amber: "▲", red: "✘" } as const;
const TONES = {
  green: "text-emerald-700 dark:text-emerald-400",
  amber: "text-amber-700 dark:text-amber-400",
  red: "text-red-700 dark:text-red-400",
} as const;

/** A "Test connection" button for one model entry, and the doctor's lines once it has run. */
export function ConnectionDoctor({ modelKey }: ConnectionDoctorProps) {
  const t = useT();
  const run = useMutation({ mutationFn: () => runModelDoctor(modelKey) });
  return (
    <div data-testid="connection-doctor" data-model-key={modelKey}>
      <button type="button" className={buttonSecondary} disabled={run.isPending} onClick={() => run.mutate()} data-testid="doctor-run">
        {run.isPending ? t("doctor.running") : t("doctor.run")}
      </button>
      {run.isError ? (
        <div className="mt-2">
          <Banner tone="error" testId="doctor-error">
            {t("doctor.failed", { message: run.error.message })}
          </Banner>
        </div>
      ) : null}
      {run.data ? <DoctorResult report={run.data} /> : null}
    </div>
  );
}

/** The doctor's lines, each with its mark, check, sentence (in the person's language) and what the server said. */
export function DoctorResult({ report }: { report: DoctorReport }) {
  const t = useT();
  const message = (key: string, params: Record<string, string | number>, fallback: string) => (hasOwnKey(en, key) ? t(key as MessageKey, params) : fallback);
  return (
    <div className="mt-2 text-sm" data-testid="doctor-result" data-ok={String(report.ok)}>
      <p className="font-medium">{t(report.ok ? "doctor.summary.ok" : "doctor.summary.red", { ms: report.ms, profile: report.provider.profile })}</p>
      <ul className="mt-1 space-y-1">
        {report.lines.map((l) => (
          <li key={l.check} data-testid="doctor-line" data-check={l.check} data-status={l.status}>
            <span className={`mr-2 font-semibold ${TONES[l.status]}`} aria-label={t(`doctor.status.${l.status}`)} title={t(`doctor.status.${l.status}`)}>
              {MARKS[l.status]}
            </span>
            <span className="font-medium">{t(`doctor.check.${l.check}`)}</span>: {message(l.message, l.params, l.text)}
            {l.said ? <div className="ml-6 font-mono text-xs break-all text-zinc-500 dark:text-zinc-400">{t("doctor.said", { said: l.said })}</div> : null}
          </li>
        ))}
      </ul>
      {report.skipped.length ? (
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400" data-testid="doctor-skipped">
          {t("doctor.skipped", { checks: report.skipped.map((c) => t(`doctor.check.${c}`)).join(", ") })}
        </p>
      ) : null}
    </div>
  );
}

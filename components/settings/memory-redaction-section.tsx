"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { memoryRedactionQuery, saveMemoryRedaction } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonPrimary, cardClass, hintClass, inputClass, labelClass } from "@/components/ui/styles";

/** The internal account-id patterns memory's redaction pass masks (models.json `redaction.account_patterns`). */
export function MemoryRedactionSection() {
  const t = useT();
  const current = useQuery(memoryRedactionQuery());
  return (
    <section className={`${cardClass} p-5`} aria-labelledby="settings-memory-redaction" data-testid="settings-memory-redaction">
      <h2 id="settings-memory-redaction" className="text-lg font-semibold">
        {t("memory.redaction.title")}
      </h2>
      {current.isPending ? (
        <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
      ) : current.isError ? (
        <div className="mt-2">
          <Banner tone="error">{t("common.loadFailed", { message: current.error.message })}</Banner>
        </div>
      ) : (
        <PatternsForm initial={current.data.account_patterns} />
      )}
    </section>
  );
}

function PatternsForm({ initial }: { initial: string[] }) {
  const t = useT();
  const client = useQueryClient();
  const [text, setText] = useState(initial.join("\n"));
  const save = useMutation({
    mutationFn: () =>
      saveMemoryRedaction(
        text
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    onSuccess: (saved) => client.setQueryData(memoryRedactionQuery().queryKey, saved),
  });
  return (
    <form
      className="mt-3 space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <label className={labelClass}>
        {t("memory.redaction.label")}
        <textarea className={`${inputClass} mt-1 font-mono`} rows={3} value={text} onChange={(e) => setText(e.target.value)} data-testid="settings-memory-patterns" />
      </label>
      <p className={hintClass}>{t("memory.redaction.hint")}</p>
      {save.isError ? (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400" data-testid="settings-memory-patterns-error">
          {save.error.message}
        </p>
      ) : null}
      {save.isSuccess ? (
        <p className="text-sm text-emerald-700 dark:text-emerald-400" data-testid="settings-memory-patterns-saved">
          {t("memory.redaction.saved")}
        </p>
      ) : null}
      <button type="submit" className={buttonPrimary} disabled={save.isPending} data-testid="settings-memory-patterns-save">
        {save.isPending ? t("common.saving") : t("common.save")}
      </button>
    </form>
  );
}

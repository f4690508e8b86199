"use client";

import { useQuery } from "@tanstack/react-query";
import { modelListQuery } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { badgeClass } from "@/components/ui/styles";

/** A model key as shown anywhere in the UI: the built-in offline model is always labelled so. */
export function ModelName({ modelKey, testId }: { modelKey: string; testId?: string }) {
  const t = useT();
  const { data } = useQuery(modelListQuery());
  const model = data?.models.find((m) => m.key === modelKey);
  const offline = model ? model.offline : modelKey === "offline";
  return (
    <span className="inline-flex items-center gap-1.5" data-testid={testId}>
      <code className="font-mono text-xs">{modelKey}</code>
      {offline && modelKey !== "offline" ? (
        <span className={`${badgeClass} bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200`}>{t("common.offline")}</span>
      ) : null}
      {offline && modelKey === "offline" ? (
        <span className="sr-only">{t("common.offline")}</span>
      ) : null}
    </span>
  );
}

"use client";
/**
 * One line under a conversation whose model is the built-in offline one: its answers come from
 * the demo model, not an LLM, and where to connect a real one (Settings → Models).
 */
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { modelListQuery } from "@/lib/client";
import { useT } from "@/lib/i18n";

/** Shown only when `modelKey` names the offline model (the built-in key, or an entry the registry marks offline). */
export function DemoModelNote({ modelKey }: { modelKey: string }) {
  const t = useT();
  const { data } = useQuery(modelListQuery());
  const model = data?.models.find((m) => m.key === modelKey);
  if (!(model ? model.offline : modelKey === "offline")) return null;
  return (
    <p className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="demo-model-note">
      {t("demoModel.lead")}{" "}
      <Link href="/settings#settings-models" className="underline hover:text-zinc-700 dark:hover:text-zinc-200" data-testid="demo-model-link">
        {t("demoModel.link")}
      </Link>
      {t("demoModel.tail")}
    </p>
  );
}

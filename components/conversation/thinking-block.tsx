"use client";

import { useT } from "@/lib/i18n";

/** A model's reasoning (`reasoning_content`), folded away unless asked for or still streaming. */
export function ThinkingBlock({ text, live }: { text: string; live?: boolean }) {
  const t = useT();
  if (!text.trim()) return null;
  return (
    <details
      className="group rounded-md border border-dashed border-zinc-300 bg-zinc-50/70 px-3 py-1.5 text-xs text-zinc-600 dark:border-zinc-700 dark:bg-zinc-800/40 dark:text-zinc-400"
      data-testid="thinking"
      open={live ? true : undefined}
    >
      <summary className="cursor-pointer select-none font-medium text-zinc-500 dark:text-zinc-400">
        {live ? t("live.thinkingNow") : t("live.thinking")}
      </summary>
      <p className="mt-1.5 whitespace-pre-wrap leading-relaxed">{text}</p>
    </details>
  );
}

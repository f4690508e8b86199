"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { LOCALES, useLocale, useT, writeLocaleCookie, type Locale } from "@/lib/i18n";

/** English / 中文: stores the choice in the `astrion_locale` cookie and re-renders from the server. */
export function LocaleSwitcher() {
  const t = useT();
  const locale = useLocale();
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  function choose(next: Locale) {
    if (next === locale) return;
    writeLocaleCookie(next);
    startTransition(() => router.refresh());
  }

  return (
    <div role="group" aria-label={t("lang.label")} className="flex items-center gap-1 text-sm" data-testid="locale-switcher">
      {LOCALES.map((l) => (
        <button
          key={l}
          type="button"
          lang={l}
          onClick={() => choose(l)}
          disabled={pending}
          aria-pressed={l === locale}
          data-testid={`locale-${l}`}
          className={`rounded-md px-2 py-1 transition-colors ${
            l === locale
              ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
              : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
          }`}
        >
          {t(`lang.${l}`)}
        </button>
      ))}
    </div>
  );
}

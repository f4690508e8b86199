"use client";

import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { buttonSecondary } from "@/components/ui/styles";

/** Shown when a page throws while rendering; the layout and navigation stay usable. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useT();
  return (
    <div className="space-y-3" data-testid="error-page">
      <h1 className="text-xl font-semibold">{t("error.title")}</h1>
      <Banner tone="error">{error.message}</Banner>
      <button type="button" className={buttonSecondary} onClick={reset}>
        {t("common.retry")}
      </button>
    </div>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { ConversationIndex } from "@/components/conversations/conversation-index";
import { getT } from "@/lib/i18n/server";
import { buttonSecondary } from "@/components/ui/styles";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("conv.title") };
}

export default async function ConversationsPage() {
  const t = await getT();
  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
            {t("conv.title")}
          </h1>
          <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("conv.subtitle")}</p>
        </div>
        <Link href="/search" className={buttonSecondary} data-testid="history-search-link">
          {t("search.open")}
        </Link>
      </div>
      <ConversationIndex />
    </div>
  );
}

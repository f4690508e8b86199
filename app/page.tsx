import type { Metadata } from "next";
import Link from "next/link";
import { ConversationIndex } from "@/components/conversations/conversation-index";
import { PageHeader } from "@/components/layout/page-header";
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
        <PageHeader title={t("conv.title")} subtitle={t("conv.subtitle")} />
        <Link href="/search" className={buttonSecondary} data-testid="history-search-link">
          {t("search.open")}
        </Link>
      </div>
      <ConversationIndex />
    </div>
  );
}

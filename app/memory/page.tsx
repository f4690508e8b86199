import type { Metadata } from "next";
import { MemoryView } from "@/components/memory/memory-view";
import { PageHeader } from "@/components/layout/page-header";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("memory.title") };
}

/** `/memory`: long-term memory entries, searched and filtered; each can be edited, re-levelled or deleted. */
export default async function MemoryPage() {
  const t = await getT();
  return (
    <div className="space-y-5">
      <PageHeader title={t("memory.title")} subtitle={t("memory.subtitle")} />
      <MemoryView />
    </div>
  );
}

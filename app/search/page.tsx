import type { Metadata } from "next";
import { SearchView } from "@/components/search/search-view";
import { PageHeader } from "@/components/layout/page-header";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("search.title") };
}

type Search = Record<string, string | string[] | undefined>;

export default async function SearchPage({ searchParams }: { searchParams: Promise<Search> }) {
  const t = await getT();
  const params = await searchParams;
  const first = (key: string) => {
    const v = params[key];
    return (Array.isArray(v) ? v[0] : v) ?? "";
  };
  return (
    <div className="space-y-5">
      <PageHeader title={t("search.title")} subtitle={t("search.subtitle")} />
      <SearchView
        initial={{
          q: first("q"),
          status: first("status"),
          agent: first("agent"),
          role: first("role"),
          model: first("model"),
          message_role: first("message_role"),
          from: first("from"),
          to: first("to"),
        }}
      />
    </div>
  );
}

import type { Metadata } from "next";
import { SearchView } from "@/components/search/search-view";
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
      <div>
        <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
          {t("search.title")}
        </h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("search.subtitle")}</p>
      </div>
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

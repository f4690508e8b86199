import type { Metadata } from "next";
import { JoinForm } from "@/components/people/join-form";
import { cardClass } from "@/components/ui/styles";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("join.title") };
}

/** `/join#<token>`: accepting an invitation (no sign-in needed: the link's token is the proof). */
export default async function JoinPage() {
  const t = await getT();
  return (
    <div className={`${cardClass} mx-auto mt-10 max-w-md p-6`}>
      <h1 className="text-xl font-semibold" data-testid="page-title">
        {t("join.title")}
      </h1>
      <p className="mt-2 mb-5 text-sm text-zinc-600 dark:text-zinc-300">{t("join.body")}</p>
      <JoinForm />
    </div>
  );
}

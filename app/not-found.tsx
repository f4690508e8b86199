import Link from "next/link";
import { getT } from "@/lib/i18n/server";

export default async function NotFound() {
  const t = await getT();
  return (
    <div className="py-10 text-center" data-testid="not-found">
      <h1 className="text-xl font-semibold">{t("notFound.title")}</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">{t("notFound.body")}</p>
      <Link href="/" className="mt-4 inline-block text-sm text-indigo-600 underline dark:text-indigo-300">
        {t("notFound.home")}
      </Link>
    </div>
  );
}

import type { Metadata } from "next";
import { RoleLibrary } from "@/components/roles/role-library";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("roles.title") };
}

export default async function RolesPage() {
  const t = await getT();
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
          {t("roles.title")}
        </h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("roles.subtitle")}</p>
      </div>
      <RoleLibrary />
    </div>
  );
}

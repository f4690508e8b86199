import type { Metadata } from "next";
import { RoleLibrary } from "@/components/roles/role-library";
import { PageHeader } from "@/components/layout/page-header";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("roles.title") };
}

export default async function RolesPage() {
  const t = await getT();
  return (
    <div className="space-y-5">
      <PageHeader title={t("roles.title")} subtitle={t("roles.subtitle")} />
      <RoleLibrary />
    </div>
  );
}

import type { Metadata } from "next";
import { NewRoleEditor } from "@/components/roles/role-editor";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("editor.newTitle") };
}

export default function NewRolePage() {
  return <NewRoleEditor />;
}

import type { Metadata } from "next";
import { SettingsView } from "@/components/settings/settings-view";
import { getT } from "@/lib/i18n/server";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("settings.title") };
}

export default async function SettingsPage() {
  const t = await getT();
  return (
    <div className="space-y-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
          {t("settings.title")}
        </h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("settings.subtitle")}</p>
      </div>
      <SettingsView />
    </div>
  );
}

import type { Metadata } from "next";
import { PageHeader } from "@/components/layout/page-header";
import { PeopleView } from "@/components/people/people-view";
import { Banner } from "@/components/ui/banner";
import { pageIdentity } from "@/lib/http";
import { getT } from "@/lib/i18n/server";
import { guardConfigFromEnv } from "@/lib/security";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("people.title") };
}

/**
 * `/people`: the owner invites people, changes their roles and removes them (team mode). Anyone
 * else is told it is the owner's page; an unconfigured server is told it has no people.
 */
export default async function PeoplePage() {
  const t = await getT();
  const me = await pageIdentity();
  const team = Boolean(guardConfigFromEnv().token);
  return (
    <div className="space-y-5">
      <PageHeader title={t("people.title")} subtitle={t("people.intro")} />
      {!team ? (
        <Banner tone="info" testId="people-not-team">
          {t("people.notTeam")}
        </Banner>
      ) : me?.role !== "owner" ? (
        <Banner tone="info" testId="people-owner-only">
          {t("people.ownerOnly")}
        </Banner>
      ) : (
        <PeopleView />
      )}
    </div>
  );
}

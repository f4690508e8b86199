import type { Metadata } from "next";
import Link from "next/link";
import { PersonSignInForm } from "@/components/auth/person-sign-in-form";
import { SignInForm } from "@/components/auth/sign-in-form";
import { cardClass } from "@/components/ui/styles";
import { getT } from "@/lib/i18n/server";
import { guardConfigFromEnv, safeNextPath } from "@/lib/security";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getT();
  return { title: t("signin.title") };
}

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const t = await getT();
  const { next } = await searchParams;
  // Read per request, as the layout does: without ASTRION_TOKEN there is nothing to sign in with.
  const tokenMode = Boolean(guardConfigFromEnv().token);
  return (
    <div className={`${cardClass} mx-auto mt-10 max-w-md p-6`}>
      <h1 className="text-xl font-semibold" data-testid="page-title">
        {t("signin.title")}
      </h1>
      {tokenMode ? (
        <>
          <p className="mt-2 mb-5 text-sm text-zinc-600 dark:text-zinc-300" data-testid="signin-body">
            {t("signin.body")}
          </p>
          <h2 className="mb-3 text-sm font-semibold">{t("signin.person.title")}</h2>
          {/* Only a same-origin path ever reaches the forms (no open redirect through ?next=). */}
          <PersonSignInForm next={safeNextPath(next)} />
          <h2 className="mt-6 mb-3 border-t border-zinc-200 pt-4 text-sm font-semibold dark:border-zinc-700">{t("signin.owner.title")}</h2>
          <SignInForm next={safeNextPath(next)} />
        </>
      ) : (
        <>
          <p className="mt-2 mb-5 text-sm text-zinc-600 dark:text-zinc-300" data-testid="signin-body">
            {t("signin.notNeeded")}
          </p>
          <Link href={safeNextPath(next)} className="text-sm font-medium text-indigo-700 underline dark:text-indigo-300" data-testid="signin-continue">
            {t("signin.continue")}
          </Link>
        </>
      )}
    </div>
  );
}

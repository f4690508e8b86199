import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/auth/sign-out-button";
import { LocaleSwitcher } from "@/components/layout/locale-switcher";
import { NavLinks } from "@/components/layout/nav-links";
import { makeTranslator } from "@/lib/i18n";
import { getLocale } from "@/lib/i18n/server";
import { guardConfigFromEnv } from "@/lib/security";
import { pageIdentity } from "@/lib/http";
import type { MessageKey } from "@/lib/i18n";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Astrion Team", template: "%s · Astrion Team" },
  description: "A Team Leader LLM agent and its sub-agents, stored as plain JSON files.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  const t = makeTranslator(locale);
  // Read per request (this layout is dynamic): sign-out only means something in token mode.
  const tokenMode = Boolean(guardConfigFromEnv().token);
  // Who this page is for (team mode: the proxy's identity; nobody on the sign-in and join pages).
  const me = tokenMode ? await pageIdentity() : null;
  return (
    <html lang={locale}>
      <body className="min-h-screen bg-zinc-50 text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <Providers locale={locale}>
          <header className="sticky top-0 z-20 border-b border-zinc-200 bg-white/90 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/90">
            <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-2 px-4 py-2.5 sm:gap-x-6">
              <Link href="/" className="flex items-center gap-2 font-semibold tracking-tight" data-testid="brand" translate="no">
                <span aria-hidden className="inline-block h-3 w-3 rounded-sm bg-indigo-600 dark:bg-indigo-400" />
                {t("app.name")}
              </Link>
              <NavLinks people={me?.role === "owner"} />
              <div className="ml-auto flex items-center gap-2">
                {me ? (
                  <span className="text-xs text-zinc-600 dark:text-zinc-300" data-testid="whoami" data-role={me.role}>
                    <span className="font-medium" translate="no">
                      {me.name}
                    </span>{" "}
                    · {t(`people.role.${me.role}` as MessageKey)}
                  </span>
                ) : null}
                <LocaleSwitcher />
                {tokenMode ? <SignOutButton /> : null}
              </div>
            </div>
          </header>
          <main className="mx-auto max-w-6xl px-4 py-6">{children}</main>
        </Providers>
      </body>
    </html>
  );
}

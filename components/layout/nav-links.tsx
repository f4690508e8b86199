"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useT, type MessageKey } from "@/lib/i18n";

const LINKS: ReadonlyArray<{ href: string; key: MessageKey; testId: string; match: (path: string) => boolean }> = [
  { href: "/", key: "nav.conversations", testId: "nav-conversations", match: (p) => p === "/" || p.startsWith("/conversations") },
  { href: "/search", key: "nav.search", testId: "nav-search", match: (p) => p.startsWith("/search") },
  { href: "/memory", key: "nav.memory", testId: "nav-memory", match: (p) => p.startsWith("/memory") },
  { href: "/roles", key: "nav.roles", testId: "nav-roles", match: (p) => p.startsWith("/roles") },
  { href: "/settings", key: "nav.settings", testId: "nav-settings", match: (p) => p.startsWith("/settings") },
];

/** The main navigation; the current section is highlighted and marked `aria-current`. */
export function NavLinks() {
  const t = useT();
  const pathname = usePathname();
  return (
    <nav aria-label={t("nav.main")} data-testid="main-nav">
      <ul className="flex items-center gap-1">
        {LINKS.map((link) => {
          const active = link.match(pathname);
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                data-testid={link.testId}
                aria-current={active ? "page" : undefined}
                className={`rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors ${
                  active
                    ? "bg-indigo-50 text-indigo-700 dark:bg-indigo-500/15 dark:text-indigo-300"
                    : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-white"
                }`}
              >
                {t(link.key)}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useId, useState } from "react";
import { useT, type MessageKey } from "@/lib/i18n";

const LINKS: ReadonlyArray<{ href: string; key: MessageKey; testId: string; match: (path: string) => boolean }> = [
  { href: "/", key: "nav.conversations", testId: "nav-conversations", match: (p) => p === "/" || p.startsWith("/conversations") },
  { href: "/search", key: "nav.search", testId: "nav-search", match: (p) => p.startsWith("/search") },
  { href: "/memory", key: "nav.memory", testId: "nav-memory", match: (p) => p.startsWith("/memory") },
  { href: "/roles", key: "nav.roles", testId: "nav-roles", match: (p) => p.startsWith("/roles") },
  { href: "/settings", key: "nav.settings", testId: "nav-settings", match: (p) => p.startsWith("/settings") },
];

/** The owner's page of team mode (issue 32). */
const PEOPLE_LINK = { href: "/people", key: "nav.people", testId: "nav-people", match: (p: string) => p.startsWith("/people") } as const;

/**
 * The main navigation; the current section is highlighted and marked `aria-current`. From the
 * `sm` width up the links sit in the header's row; on a phone, where they do not fit beside the
 * name and the language switch (English: 430 px of links), a Menu button opens them as a list
 * under the header. `people`: the owner of a team sees the People page too.
 */
export function NavLinks({ people = false }: { people?: boolean }) {
  const t = useT();
  const pathname = usePathname();
  const listId = useId();
  const [open, setOpen] = useState(false);
  return (
    <nav aria-label={t("nav.main")} data-testid="main-nav">
      <button
        type="button"
        className="flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-medium text-zinc-700 hover:bg-zinc-100 sm:hidden dark:text-zinc-200 dark:hover:bg-zinc-800"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
        data-testid="nav-menu"
      >
        <span aria-hidden>{open ? "✕" : "☰"}</span>
        {t("nav.menu")}
      </button>
      <ul
        id={listId}
        className={`${open ? "flex" : "hidden"} absolute inset-x-0 top-full flex-col gap-1 border-b border-zinc-200 bg-white p-2 shadow-sm sm:static sm:flex sm:flex-row sm:items-center sm:border-0 sm:bg-transparent sm:p-0 sm:shadow-none dark:border-zinc-800 dark:bg-zinc-900 sm:dark:bg-transparent`}
      >
        {(people ? [...LINKS, PEOPLE_LINK] : LINKS).map((link) => {
          const active = link.match(pathname);
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                data-testid={link.testId}
                aria-current={active ? "page" : undefined}
                // Following a link closes the menu.
                onClick={() => setOpen(false)}
                className={`block rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors sm:inline ${
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

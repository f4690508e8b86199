"use client";

import type { RoleListEntry } from "@/lib/roles/schema";
import { useT } from "@/lib/i18n";
import { badgeClass } from "@/components/ui/styles";

type LoadedRole = Extract<RoleListEntry, { kind: "role" }>;

/**
 * The tags routing derived from a role's name and description (issue 9), on its card: shown only
 * when the file declares no capabilities, each marked "derived" so nobody takes them for declared.
 */
export function DerivedCapabilities({ role }: { role: LoadedRole }) {
  const t = useT();
  const tags = role.capabilities.length === 0 ? (role.derived_capabilities ?? []) : [];
  if (tags.length === 0) return null;
  return (
    <div className="flex flex-wrap items-center gap-1" data-testid="role-card-derived" title={t("roles.derived.hint")}>
      <span className={`${badgeClass} border border-dashed border-amber-400 bg-amber-50 text-amber-800 dark:border-amber-500/60 dark:bg-amber-500/10 dark:text-amber-300`} data-testid="role-card-derived-badge">
        {t("roles.derived.badge")}
      </span>
      <ul className="contents" aria-label={t("roles.derived.label")}>
        {tags.map((c) => (
          <li key={c} className={`${badgeClass} border border-dashed border-zinc-300 bg-transparent dark:border-zinc-600`} data-testid="role-card-derived-tag" translate="no">
            {c}
          </li>
        ))}
      </ul>
    </div>
  );
}

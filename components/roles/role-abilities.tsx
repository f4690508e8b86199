"use client";

import type { Ability } from "@/lib/abilities/schema";
import { useT } from "@/lib/i18n";

/** A role's `provides:` abilities, read-only: name, description, input and output schemas (edited as raw text). */
export function RoleAbilities({ provides }: { provides: readonly Ability[] | undefined }) {
  const t = useT();
  if (!provides?.length) return null;
  return (
    <section className="rounded-md border border-zinc-200 p-3 dark:border-zinc-700" data-testid="role-provides">
      <h3 className="text-sm font-medium">{t("editor.provides.title")}</h3>
      <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">{t("editor.provides.note")}</p>
      <ul className="mt-2 space-y-3">
        {provides.map((a) => (
          <li key={a.name} className="border-t border-zinc-100 pt-2 first:border-t-0 first:pt-0 dark:border-zinc-800" data-testid="role-provides-item">
            <code className="font-mono text-sm font-semibold">{a.name}</code>
            <p className="text-sm text-zinc-600 dark:text-zinc-300">{a.description}</p>
            <p className="mt-1 text-xs font-medium text-zinc-500 dark:text-zinc-400">{t("editor.provides.input")}</p>
            <pre className="overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-900">{JSON.stringify(a.input, null, 2)}</pre>
            <p className="mt-1 text-xs font-medium text-zinc-500 dark:text-zinc-400">{t("editor.provides.output")}</p>
            {a.output ? (
              <pre className="overflow-x-auto rounded bg-zinc-50 p-2 font-mono text-xs dark:bg-zinc-900">{JSON.stringify(a.output, null, 2)}</pre>
            ) : (
              <p className="text-xs text-zinc-500 italic dark:text-zinc-400">{t("editor.provides.noOutput")}</p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

"use client";

import { useT } from "@/lib/i18n";

function show(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** Frontmatter keys the editor does not know (e.g. Claude Code's `color`), read-only. */
export function ExtraFieldsTable({ extra }: { extra: Record<string, unknown> }) {
  const t = useT();
  const entries = Object.entries(extra);
  if (entries.length === 0) return null;
  return (
    <section className="rounded-md border border-zinc-200 p-3 dark:border-zinc-700" data-testid="role-extra">
      <h3 className="text-sm font-medium">{t("editor.extra.title")}</h3>
      <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">{t("editor.extra.note")}</p>
      <table className="mt-2 w-full text-left text-sm">
        <thead>
          <tr className="text-xs text-zinc-500 dark:text-zinc-400">
            <th className="py-1 pr-4 font-medium">{t("editor.extra.key")}</th>
            <th className="py-1 font-medium">{t("editor.extra.value")}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([key, value]) => (
            <tr key={key} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="role-extra-row">
              {/* The file's own keys and values: code and data. */}
              <td className="py-1 pr-4 align-top font-mono text-xs">
                <code>{key}</code>
              </td>
              <td className="py-1 font-mono text-xs break-all whitespace-pre-wrap" translate="no">
                {show(value)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

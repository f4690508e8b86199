"use client";

import { useT } from "@/lib/i18n";
import type { ToolPolicy } from "@/lib/governance/tool-policy";

/**
 * A role's approval policy as written in its file (`tool_policy:` and `allowed_commands:`), on
 * the role card and in the editor. They are edited in the file itself; the form keeps them.
 * Nothing when the role sets neither (the defaults apply: tools that write or run ask first).
 */
export function RolePolicySummary({ toolPolicy, allowedCommands, compact = false }: { toolPolicy?: ToolPolicy; allowedCommands?: readonly string[]; compact?: boolean }) {
  const t = useT();
  const entries = Object.entries(toolPolicy ?? {});
  if (entries.length === 0 && !allowedCommands?.length) return null;
  return (
    <div className={compact ? "space-y-0.5 text-xs" : "mt-2 space-y-1 text-sm"} data-testid="role-policy">
      {compact ? null : <p className="font-medium text-zinc-700 dark:text-zinc-200">{t("roles.policy.label")}</p>}
      {entries.length ? (
        <p className="font-mono text-zinc-600 dark:text-zinc-300" data-testid="role-policy-tools">
          {entries.map(([tool, value]) => `${tool}: ${t(`roles.policy.${value}`)}`).join(" · ")}
        </p>
      ) : null}
      {allowedCommands?.length ? (
        <p className="text-zinc-600 dark:text-zinc-300" data-testid="role-policy-commands">
          {t("roles.policy.commands")} <span className="font-mono">{allowedCommands.join(" · ")}</span>
        </p>
      ) : null}
    </div>
  );
}

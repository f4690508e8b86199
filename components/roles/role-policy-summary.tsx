"use client";

import { useT } from "@/lib/i18n";
import type { CommandEntryValue, ToolPolicy } from "@/lib/roles/policy-schema";

const patternOf = (e: CommandEntryValue) => (typeof e === "string" ? e : e.pattern);
const trusts = (e: CommandEntryValue) => typeof e !== "string" && e.trust_agent_code === true;

/**
 * A role's approval policy as written in its file (`tool_policy:` and `allowed_commands:`), on
 * the role card and in the editor. They are edited in the file itself; the form keeps them.
 * Nothing when the role sets neither (the defaults apply: tools that write or run ask first).
 * Entries that trust agent-written code are listed apart, with a warning: an agent that writes
 * files can make such a command run anything.
 */
export function RolePolicySummary({ toolPolicy, allowedCommands, compact = false }: { toolPolicy?: ToolPolicy; allowedCommands?: readonly CommandEntryValue[]; compact?: boolean }) {
  const t = useT();
  const entries = Object.entries(toolPolicy ?? {});
  const plain = (allowedCommands ?? []).filter((e) => !trusts(e)).map(patternOf);
  const trusted = (allowedCommands ?? []).filter(trusts).map(patternOf);
  if (entries.length === 0 && !plain.length && !trusted.length) return null;
  return (
    <div className={compact ? "space-y-0.5 text-xs" : "mt-2 space-y-1 text-sm"} data-testid="role-policy">
      {compact ? null : <p className="font-medium text-zinc-700 dark:text-zinc-200">{t("roles.policy.label")}</p>}
      {entries.length ? (
        <p className="font-mono text-zinc-600 dark:text-zinc-300" data-testid="role-policy-tools">
          {entries.map(([tool, value]) => `${tool}: ${t(`roles.policy.${value}`)}`).join(" · ")}
        </p>
      ) : null}
      {plain.length ? (
        <p className="text-zinc-600 dark:text-zinc-300" data-testid="role-policy-commands" title={t("roles.policy.commandsNote")}>
          {t("roles.policy.commands")} <span className="font-mono" translate="no">{plain.join(" · ")}</span>
        </p>
      ) : null}
      {plain.length && !compact ? <p className="text-xs text-zinc-500 dark:text-zinc-400">{t("roles.policy.commandsNote")}</p> : null}
      {trusted.length ? (
        <div className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-100" data-testid="role-policy-trusted" role="note">
          <p>
            {t("roles.policy.trusted")} <span className="font-mono" translate="no">{trusted.join(" · ")}</span>
          </p>
          <p className="font-medium" data-testid="role-policy-trusted-warning">
            ⚠ {t("roles.policy.trustedWarning")}
          </p>
        </div>
      ) : null}
    </div>
  );
}

"use client";

import { useT } from "@/lib/i18n";
import { roleToolAccess, type ToolMapping } from "@/lib/roles/tool-mapping";
import type { Permission } from "@/lib/roles/schema";

function mappingText(m: ToolMapping, t: ReturnType<typeof useT>): string {
  switch (m.kind) {
    case "mapped":
      return m.grants.join(", ");
    case "team":
      return t("roles.toolMap.team", { tool: m.covered_by ?? m.name });
    case "mcp":
      if (m.undeclared) return t("roles.toolMap.mcpUndeclared", { server: m.server ?? "" });
      return m.tool ? t("roles.toolMap.mcpTool", { tool: m.tool, server: m.server ?? "" }) : t("roles.toolMap.mcpServer", { server: m.server ?? "" });
    case "gateway":
      return t("roles.toolMap.gateway", { source: m.source ?? "" });
    case "unavailable":
      return t("roles.toolMap.unavailable");
    case "unknown":
      return t("roles.toolMap.unknown");
  }
}

/**
 * What a role's `tools:` give it, one line per name ("Read → list_files, read_file,
 * search_files", "Bash → run_command", "WebFetch → not available yet" with a warning), on the role card and in the
 * editor. Nothing when the role has no `tools:` (its permissions decide, as the card shows).
 */
export function RoleToolMapping({
  tools,
  permissions,
  compact = false,
  testId = "role-tool-mapping",
  declaredServers,
}: {
  tools: readonly string[] | undefined;
  permissions?: readonly string[] | undefined;
  /** The servers of mcp.json, when known: an `mcp__` name of another server is a warning. */
  declaredServers?: readonly string[] | undefined;
  compact?: boolean;
  testId?: string;
}) {
  const t = useT();
  const access = roleToolAccess({ tools, permissions: permissions?.filter((p): p is Permission => p === "read" || p === "write" || p === "execute") }, declaredServers ? new Set(declaredServers) : undefined);
  if (access.source !== "explicit") return null;
  const warnings = access.mappings.filter((m) => m.warning).length;
  return (
    <div className={compact ? "space-y-0.5 text-xs" : "mt-2 space-y-1 text-sm"} data-testid={testId}>
      {compact ? null : <p className="font-medium text-zinc-700 dark:text-zinc-200">{t("roles.toolMap.label")}</p>}
      <ul className="space-y-0.5 font-mono">
        {access.mappings.map((m, i) => (
          <li
            key={`${m.name}-${i}`}
            className={m.warning ? "text-amber-700 dark:text-amber-400" : "text-zinc-600 dark:text-zinc-300"}
            data-testid="role-tool-mapping-line"
            data-kind={m.kind}
          >
            {m.warning ? "⚠ " : ""}
            {m.name} → {mappingText(m, t)}
          </li>
        ))}
      </ul>
      <p className="text-zinc-500 dark:text-zinc-400" data-testid="role-tool-mapping-summary">
        {t("roles.toolMap.exact", { list: access.file_tools.length ? access.file_tools.join(", ") : t("roles.toolMap.noFileTools") })}
        {access.permissions.includes("execute") ? ` · ${t("roles.toolMap.execute")}` : ""}
        {warnings > 0 ? <span className="ml-2 text-amber-700 dark:text-amber-400">· {t("roles.toolMap.warnings", { n: warnings })}</span> : null}
      </p>
    </div>
  );
}

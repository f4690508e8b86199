"use client";

import type { ReactNode } from "react";
import { DataText } from "@/components/ui/data-text";
import { useT } from "@/lib/i18n";
import { roleToolAccess, type ToolMapping } from "@/lib/roles/tool-mapping";
import type { Permission } from "@/lib/roles/schema";

/** What one `tools:` name gives; the names in it (tools, servers, sources) are the file's data. */
function mappingText(m: ToolMapping, t: ReturnType<typeof useT>): ReactNode {
  switch (m.kind) {
    case "mapped":
      return <span translate="no">{m.grants.join(", ")}</span>;
    case "team":
      return <DataText k="roles.toolMap.team" vars={{ tool: m.covered_by ?? m.name }} />;
    case "mcp":
      if (m.undeclared) return <DataText k="roles.toolMap.mcpUndeclared" vars={{ server: m.server ?? "" }} />;
      return m.tool ? <DataText k="roles.toolMap.mcpTool" vars={{ tool: m.tool, server: m.server ?? "" }} /> : <DataText k="roles.toolMap.mcpServer" vars={{ server: m.server ?? "" }} />;
    case "gateway":
      return <DataText k="roles.toolMap.gateway" vars={{ source: m.source ?? "" }} />;
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
            <span translate="no">{m.name}</span> → {mappingText(m, t)}
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

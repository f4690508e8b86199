"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import type { RoleListEntry } from "@/lib/roles/schema";
import { mcpServersQuery, roleListQuery } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { ModelName } from "@/components/models/model-name";
import { Banner } from "@/components/ui/banner";
import { DataText } from "@/components/ui/data-text";
import { badgeClass, buttonPrimary, cardClass, inputClass } from "@/components/ui/styles";
import { RoleImportButton } from "./role-import-button";
import { DerivedCapabilities } from "./derived-capabilities";
import { RoleRenameFix } from "./role-rename-fix";
import { RolePolicySummary } from "./role-policy-summary";
import { RoleToolMapping } from "./role-tool-mapping";

type LoadedRole = Extract<RoleListEntry, { kind: "role" }>;
type BrokenRole = Extract<RoleListEntry, { kind: "error" }>;

function matches(entry: RoleListEntry, needle: string): boolean {
  if (!needle) return true;
  const hay =
    entry.kind === "role"
      ? [entry.id, entry.name, entry.description, ...entry.capabilities, ...(entry.derived_capabilities ?? [])].join(" ")
      : [entry.id, entry.file, entry.message].join(" ");
  return hay.toLowerCase().includes(needle);
}

/** The role library: a card per role file, broken files as red cards, a filter, New and Import. */
export function RoleLibrary() {
  const t = useT();
  const filterId = useId();
  const [filter, setFilter] = useState("");
  const query = useQuery(roleListQuery());
  const needle = filter.trim().toLowerCase();
  const roles = (query.data ?? []).filter((r) => matches(r, needle));

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-start gap-3">
        <div className="min-w-56 flex-1">
          <label htmlFor={filterId} className="sr-only">
            {t("roles.search.label")}
          </label>
          <input
            id={filterId}
            type="search"
            className={inputClass}
            placeholder={t("roles.search.placeholder")}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            data-testid="role-search"
          />
        </div>
        <Link href="/roles/new" className={buttonPrimary} data-testid="role-new">
          + {t("roles.new")}
        </Link>
        <RoleImportButton />
      </div>

      {query.isPending ? (
        <p className="text-sm text-zinc-500">{t("common.loading")}</p>
      ) : query.isError ? (
        <Banner tone="error" testId="role-load-error">
          {t("common.loadFailed", { message: query.error.message })}
        </Banner>
      ) : query.data.length === 0 ? (
        <p className={`${cardClass} px-6 py-8 text-center text-sm text-zinc-600 dark:text-zinc-300`} data-testid="role-empty">
          {t("roles.empty")}
        </p>
      ) : roles.length === 0 ? (
        <p className="py-8 text-center text-sm text-zinc-500" data-testid="role-no-matches">
          {t("roles.noMatches")}
        </p>
      ) : (
        <>
          <p className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="role-count">
            {t("roles.count", { n: roles.length })}
          </p>
          <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3" data-testid="role-list">
            {roles.map((r) => (r.kind === "role" ? <RoleCard key={r.file} role={r} /> : <BrokenRoleCard key={r.file} role={r} />))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Where a card opens: by id, or by exact file name for a file whose name is no valid id. */
function editorHref(entry: RoleListEntry): string {
  return `/roles/${encodeURIComponent(entry.suggested_id !== undefined ? entry.file : entry.id)}`;
}

/** A Claude Code `color` (a CSS colour name such as `blue`) as a dot; anything else is ignored. */
function ColorDot({ color }: { color: string | undefined }) {
  if (!color || !/^(#[0-9a-f]{3,8}|[a-z]{3,20})$/i.test(color)) return null;
  return (
    <span
      aria-label={color}
      title={color}
      translate="no"
      className="inline-block h-2.5 w-2.5 shrink-0 rounded-full ring-1 ring-black/10 dark:ring-white/20"
      style={{ backgroundColor: color }}
      data-testid="role-card-color"
    />
  );
}

function RoleCard({ role }: { role: LoadedRole }) {
  const t = useT();
  // The servers of mcp.json: a role naming another one is warned about (react-query shares one request).
  const mcp = useQuery(mcpServersQuery());
  const declared = mcp.data && mcp.data.error === null ? mcp.data.servers.map((x) => x.name) : undefined;
  return (
    <li data-testid="role-card" data-role-id={role.id} data-file={role.file} className="flex flex-col gap-2">
      <Link
        href={editorHref(role)}
        className={`${cardClass} flex flex-1 flex-col gap-2 p-4 transition-colors hover:border-indigo-400 dark:hover:border-indigo-500`}
      >
        <div className="flex items-center gap-2">
          <ColorDot color={role.color} />
          <h2 className="truncate font-semibold" data-testid="role-card-name" translate="no">
            {role.name}
          </h2>
        </div>
        <code className="font-mono text-xs text-zinc-500 dark:text-zinc-400" data-testid="role-card-id">
          {role.id}
        </code>
        {/* The role file's own words (data, in the language its author wrote them), as are its capabilities. */}
        <p className="line-clamp-3 text-sm text-zinc-600 dark:text-zinc-300" title={role.description} translate="no">
          {role.description}
        </p>
        {role.capabilities.length > 0 ? (
          <ul className="flex flex-wrap gap-1" aria-label={t("editor.field.capabilities")} translate="no">
            {role.capabilities.map((c) => (
              <li key={c} className={`${badgeClass} bg-indigo-50 text-indigo-700 dark:bg-indigo-500/15 dark:text-indigo-300`}>
                {c}
              </li>
            ))}
          </ul>
        ) : null}
        <DerivedCapabilities role={role} />
        {role.provides?.length ? (
          <ul className="flex flex-wrap items-center gap-1" aria-label={t("roles.provides")} data-testid="role-card-provides">
            <li className="text-xs text-zinc-500 dark:text-zinc-400">{t("roles.provides")}:</li>
            {role.provides.map((a) => (
              <li key={a.name} title={a.description} translate="no" className={`${badgeClass} bg-emerald-50 font-mono text-emerald-700 dark:bg-emerald-500/15 dark:text-emerald-300`}>
                {a.name}
              </li>
            ))}
          </ul>
        ) : null}
        <RoleToolMapping tools={role.tools} permissions={role.permissions} compact testId="role-card-tool-mapping" declaredServers={declared} />
        <RolePolicySummary toolPolicy={role.tool_policy} allowedCommands={role.allowed_commands} compact />
        {role.mcp_servers?.length ? (
          <p className="font-mono text-xs text-zinc-600 dark:text-zinc-300" data-testid="role-card-mcp-servers">
            <DataText k="roles.mcpServers" vars={{ list: role.mcp_servers.join(", ") }} />
            {declared && role.mcp_servers.some((m) => !declared.includes(m)) ? (
              <span className="ml-1 text-amber-700 dark:text-amber-400">
                ⚠ {role.mcp_servers.filter((m) => !declared.includes(m)).map((m, i) => (
                    <span key={m}>
                      {i > 0 ? "; " : ""}
                      <DataText k="roles.toolMap.mcpUndeclared" vars={{ server: m }} />
                    </span>
                  ))}
              </span>
            ) : null}
          </p>
        ) : null}
        {role.gateway?.length ? (
          <p className="text-xs text-zinc-600 dark:text-zinc-300" data-testid="role-card-gateway">
            <DataText k="roles.gateway" vars={{ list: role.gateway.join(", ") }} />
          </p>
        ) : null}
        <div className="mt-auto flex flex-wrap items-center gap-x-3 gap-y-1 pt-1 text-xs text-zinc-500 dark:text-zinc-400">
          <span data-testid="role-card-model">
            {role.model ? <ModelName modelKey={role.model} /> : <em>{t("roles.model.conversation")}</em>}
          </span>
          <span>{role.thinking_mode ? t(`roles.thinking.${role.thinking_mode}`) : t("roles.thinking.unset")}</span>
          <span title={role.access.project_tools.join(", ")} data-testid="role-card-tools">
            {role.access.project_tools.length === 1 ? t("roles.tools.one") : t("roles.tools", { n: role.access.project_tools.length })}
          </span>
          <span title={t("roles.permissions")} data-testid="role-card-permissions">
            {role.access.permissions.length > 0 ? role.access.permissions.map((p) => t(`roles.permission.${p}`)).join(" · ") : t("roles.noPermissions")}
          </span>
          {role.warnings.length > 0 ? (
            <span className="text-amber-600 dark:text-amber-400" title={role.warnings.join("\n")}>
              ⚠ {t("roles.warnings")}
            </span>
          ) : null}
        </div>
      </Link>
      {role.suggested_id !== undefined ? <RoleRenameFix file={role.file} suggestedId={role.suggested_id} /> : null}
    </li>
  );
}

function BrokenRoleCard({ role }: { role: BrokenRole }) {
  const t = useT();
  return (
    <li data-testid="role-error-card" data-role-id={role.id} data-file={role.file} className="flex flex-col gap-2">
      <Link
        href={editorHref(role)}
        className="flex flex-1 flex-col gap-2 rounded-lg border border-red-300 bg-red-50 p-4 text-red-900 transition-colors hover:border-red-500 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200"
      >
        <h2 className="font-semibold">{t("roles.errorCard")}</h2>
        <code className="font-mono text-xs" data-testid="role-error-file">
          {role.file}
        </code>
        <p className="line-clamp-4 font-mono text-xs whitespace-pre-wrap" data-testid="role-error-message">
          {role.line !== undefined ? (
            <span className="mr-2 font-semibold" data-testid="role-error-line">
              {t("editor.raw.errorLine", { line: role.line })}
            </span>
          ) : null}
          {role.message}
        </p>
        <span className="mt-auto text-sm font-medium underline">{t("roles.errorFix")}</span>
      </Link>
      {role.suggested_id !== undefined ? <RoleRenameFix file={role.file} suggestedId={role.suggested_id} /> : null}
    </li>
  );
}

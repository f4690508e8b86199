"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState, type FormEvent, type ReactNode } from "react";
import type { RoleDetail } from "@/lib/roles/schema";
import type { ModelList } from "@/lib/api/contract";
import { ApiError, createRole, mcpServersQuery, modelListQuery, roleKeys, updateRole } from "@/lib/client";
import { modelResolutionText } from "@/lib/client/model-resolution";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { FieldError } from "@/components/ui/field-error";
import { badgeClass, buttonPrimary, hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { ExtraFieldsTable } from "./extra-fields-table";
import { RoleAbilities } from "./role-abilities";
import { PromptBodyField } from "./prompt-body-field";
import { RoleToolMapping } from "./role-tool-mapping";
import {
  EMPTY_FORM,
  fieldsFromForm,
  formFromFields,
  splitTags,
  splitTools,
  validateFields,
  type RoleFieldName,
  type RoleFormState,
} from "./role-form-state";

type Errors = Partial<Record<RoleFieldName, string>>;

/** Maps a server `validation_failed` answer's `details` (`fields.name`, `body`, …) to form fields. */
function serverErrors(error: ApiError): { fields: Errors; other: string[] } {
  const fields: Errors = {};
  const other: string[] = [];
  for (const issue of error.fieldIssues) {
    const parts = issue.path.split(".");
    const name = (parts[0] === "fields" ? parts[1] : parts[0]) as RoleFieldName | undefined;
    if (name && ["id", "name", "description", "model", "thinking_mode", "capabilities", "tools", "permissions", "max_concurrency", "gateway"].includes(name)) {
      fields[name] ??= issue.message;
    } else {
      other.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
    }
  }
  return { fields, other };
}

/**
 * The role form: every field, validated with the server's schema as the user types, plus the
 * server's own answer. Without `role` it creates a new role and then opens it.
 */
export function RoleForm({
  role,
  onSaved,
  onReload,
}: {
  role?: RoleDetail;
  onSaved?: (role: RoleDetail) => void;
  onReload?: () => void;
}) {
  const t = useT();
  const uid = useId();
  const router = useRouter();
  const queryClient = useQueryClient();
  const models = useQuery(modelListQuery());
  const mcp = useQuery(mcpServersQuery());
  const declaredServers = mcp.data && mcp.data.error === null ? mcp.data.servers.map((x) => x.name) : undefined;
  const initial = useMemo(
    () => (role ? { form: formFromFields(role.fields, role.body), fields: role.fields } : undefined),
    [role],
  );
  const [form, setForm] = useState<RoleFormState>(initial?.form ?? EMPTY_FORM);
  const [touched, setTouched] = useState<ReadonlySet<RoleFieldName>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [server, setServer] = useState<{ fields: Errors; other: string[] }>({ fields: {}, other: [] });
  const [conflict, setConflict] = useState<string | null>(null);

  const { fields, numberError } = fieldsFromForm(form, initial, t("editor.field.maxConcurrency.invalid"));
  const validation = validateFields(fields);
  const clientErrors: Errors = validation.ok ? {} : { ...validation.errors };
  if (numberError) clientErrors.max_concurrency = numberError;
  const errorFor = (name: RoleFieldName) =>
    (submitted || touched.has(name) ? clientErrors[name] : undefined) ?? server.fields[name];

  const mutation = useMutation({
    mutationFn: async () => {
      if (!validation.ok) throw new Error("invalid");
      if (role) {
        const { id: _id, ...rest } = validation.data;
        void _id;
        return updateRole(role.id, { etag: role.etag, fields: rest, body: form.body });
      }
      return createRole({ fields: validation.data, body: form.body });
    },
    onSuccess: async (saved) => {
      queryClient.setQueryData(roleKeys.detail(saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: roleKeys.list() });
      if (saved.kind !== "role") return;
      if (role) onSaved?.(saved);
      else router.push(`/roles/${encodeURIComponent(saved.id)}`);
    },
    onError: (error) => {
      if (!(error instanceof ApiError)) return;
      if (error.isConflict) {
        setConflict(role ? t("editor.conflict") : t("editor.exists"));
        if (!role) setServer({ fields: { id: t("editor.exists") }, other: [] });
        return;
      }
      if (error.fieldIssues.length > 0) setServer(serverErrors(error));
    },
  });

  function update<K extends keyof RoleFormState>(key: K, value: RoleFormState[K]) {
    setForm((f) => ({ ...f, [key]: value }));
    const fieldName = (key === "read" || key === "write" || key === "execute" ? "permissions" : key) as RoleFieldName;
    setTouched((s) => (s.has(fieldName) ? s : new Set(s).add(fieldName)));
    if (server.fields[fieldName]) setServer((s) => ({ ...s, fields: { ...s.fields, [fieldName]: undefined } }));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    setSubmitted(true);
    setConflict(null);
    setServer({ fields: {}, other: [] });
    if (!validation.ok || numberError) return;
    mutation.mutate();
  }

  const hasClientErrors = !validation.ok || numberError !== undefined;
  const otherError =
    mutation.error && !(mutation.error instanceof ApiError && (mutation.error.isConflict || mutation.error.fieldIssues.length > 0))
      ? mutation.error.message === "invalid"
        ? undefined
        : mutation.error.message
      : undefined;
  const fid = (name: string) => `${uid}-${name}`;
  const tags = splitTags(form.capabilities);

  return (
    <form onSubmit={submit} noValidate className="space-y-5" data-testid="role-form">
      {conflict ? (
        <Banner tone="error" testId="role-conflict">
          <span>{conflict}</span>
          {role && onReload ? (
            <button type="button" className="ml-3 font-medium underline" onClick={onReload} data-testid="role-reload">
              {t("editor.reload")}
            </button>
          ) : null}
        </Banner>
      ) : null}
      {server.other.length > 0 || otherError ? (
        <Banner tone="error" testId="role-save-error">
          {[...server.other, ...(otherError ? [otherError] : [])].join("; ")}
        </Banner>
      ) : null}
      {role && role.warnings.length > 0 ? (
        <Banner tone="warning" testId="role-warnings">
          <p className="font-medium">{t("editor.warnings")}</p>
          <ul className="list-disc pl-5">
            {role.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Banner>
      ) : null}

      <div className="grid gap-5 md:grid-cols-2">
        <Field label={t("editor.field.id")} htmlFor={fid("id")} hint={t("editor.field.id.hint")} error={errorFor("id")} name="id">
          <input
            id={fid("id")}
            className={`${inputClass} font-mono read-only:bg-zinc-100 read-only:text-zinc-500 dark:read-only:bg-zinc-800 dark:read-only:text-zinc-400`}
            value={form.id}
            readOnly={Boolean(role)}
            onChange={(e) => update("id", e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={errorFor("id") ? true : undefined}
            aria-describedby={`${fid("id")}-hint ${fid("id")}-error`}
            data-testid="role-field-id"
          />
        </Field>
        <Field label={t("editor.field.name")} htmlFor={fid("name")} error={errorFor("name")} name="name">
          <input
            id={fid("name")}
            className={inputClass}
            value={form.name}
            onChange={(e) => update("name", e.target.value)}
            aria-invalid={errorFor("name") ? true : undefined}
            aria-describedby={`${fid("name")}-error`}
            data-testid="role-field-name"
          />
        </Field>
        <Field
          label={t("editor.field.description")}
          htmlFor={fid("description")}
          hint={t("editor.field.description.hint")}
          error={errorFor("description")}
          name="description"
          wide
        >
          <textarea
            id={fid("description")}
            className={`${inputClass} min-h-20`}
            value={form.description}
            onChange={(e) => update("description", e.target.value)}
            aria-invalid={errorFor("description") ? true : undefined}
            aria-describedby={`${fid("description")}-hint ${fid("description")}-error`}
            data-testid="role-field-description"
          />
        </Field>
        <Field
          label={t("editor.field.model")}
          htmlFor={fid("model")}
          hint={t("editor.field.model.hint")}
          error={errorFor("model")}
          name="model"
        >
          <input
            id={fid("model")}
            className={`${inputClass} font-mono`}
            value={form.model}
            onChange={(e) => update("model", e.target.value)}
            list={fid("models")}
            spellCheck={false}
            autoComplete="off"
            placeholder={t("roles.model.conversation")}
            aria-invalid={errorFor("model") ? true : undefined}
            aria-describedby={`${fid("model")}-hint ${fid("model")}-error`}
            data-testid="role-field-model"
          />
          <datalist id={fid("models")}>
            {models.data?.models.map((m) => (
              <option key={m.key} value={m.key}>
                {m.offline ? `${m.label} (${t("common.offline")})` : m.label}
              </option>
            ))}
            {Object.keys(models.data?.aliases ?? {}).map((alias) => (
              <option key={`alias:${alias}`} value={alias} />
            ))}
          </datalist>
          {models.data ? <ModelResolution name={form.model} list={models.data} /> : null}
        </Field>
        <Field label={t("editor.field.thinking")} htmlFor={fid("thinking")} error={errorFor("thinking_mode")} name="thinking_mode">
          <select
            id={fid("thinking")}
            className={inputClass}
            value={form.thinking_mode}
            onChange={(e) => update("thinking_mode", e.target.value as RoleFormState["thinking_mode"])}
            data-testid="role-field-thinking-mode"
          >
            <option value="">{t("editor.field.thinking.unset")}</option>
            <option value="fast">{t("editor.field.thinking.fast")}</option>
            <option value="thinking">{t("editor.field.thinking.thinking")}</option>
          </select>
        </Field>
        <Field
          label={t("editor.field.capabilities")}
          htmlFor={fid("capabilities")}
          hint={t("editor.field.capabilities.hint")}
          error={errorFor("capabilities")}
          name="capabilities"
        >
          <input
            id={fid("capabilities")}
            className={inputClass}
            value={form.capabilities}
            onChange={(e) => update("capabilities", e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={errorFor("capabilities") ? true : undefined}
            aria-describedby={`${fid("capabilities")}-hint ${fid("capabilities")}-error`}
            data-testid="role-field-capabilities"
          />
          {tags.length > 0 ? (
            <ul className="mt-1.5 flex flex-wrap gap-1" aria-hidden data-testid="role-capability-tags">
              {tags.map((tag, i) => (
                <li key={`${tag}-${i}`} className={`${badgeClass} bg-indigo-50 text-indigo-700 dark:bg-indigo-500/15 dark:text-indigo-300`}>
                  {tag}
                </li>
              ))}
            </ul>
          ) : null}
        </Field>
        <Field
          label={t("editor.field.tools")}
          htmlFor={fid("tools")}
          hint={t("editor.field.tools.hint")}
          error={errorFor("tools")}
          name="tools"
        >
          <input
            id={fid("tools")}
            className={`${inputClass} font-mono`}
            value={form.tools}
            onChange={(e) => update("tools", e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={errorFor("tools") ? true : undefined}
            aria-describedby={`${fid("tools")}-hint ${fid("tools")}-error`}
            data-testid="role-field-tools"
          />
          <RoleToolMapping tools={splitTools(form.tools)} permissions={[form.read ? "read" : "", form.write ? "write" : "", form.execute ? "execute" : ""]} testId="role-editor-tool-mapping" declaredServers={declaredServers} />
        </Field>
        <Field
          label={t("editor.field.mcpServers")}
          htmlFor={fid("mcp_servers")}
          hint={t("editor.field.mcpServers.hint")}
          error={errorFor("mcp_servers")}
          name="mcp_servers"
        >
          <input
            id={fid("mcp_servers")}
            className={`${inputClass} font-mono`}
            value={form.mcp_servers}
            onChange={(e) => update("mcp_servers", e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={errorFor("mcp_servers") ? true : undefined}
            aria-describedby={`${fid("mcp_servers")}-hint ${fid("mcp_servers")}-error`}
            data-testid="role-field-mcp-servers"
          />
          {declaredServers && splitTools(form.mcp_servers).some((m) => !declaredServers.includes(m)) ? (
            <p className="mt-1 text-xs text-amber-700 dark:text-amber-400" data-testid="role-field-mcp-servers-warning">
              ⚠ {splitTools(form.mcp_servers).filter((m) => !declaredServers.includes(m)).map((m) => t("roles.toolMap.mcpUndeclared", { server: m })).join("; ")}
            </p>
          ) : null}
        </Field>
        <Field
          label={t("editor.field.gateway")}
          htmlFor={fid("gateway")}
          hint={t("editor.field.gateway.hint")}
          error={errorFor("gateway")}
          name="gateway"
        >
          <input
            id={fid("gateway")}
            className={`${inputClass} font-mono`}
            value={form.gateway}
            onChange={(e) => update("gateway", e.target.value)}
            spellCheck={false}
            autoComplete="off"
            aria-invalid={errorFor("gateway") ? true : undefined}
            aria-describedby={`${fid("gateway")}-hint ${fid("gateway")}-error`}
            data-testid="role-field-gateway"
          />
        </Field>
        <fieldset>
          <legend className={labelClass}>{t("editor.field.permissions")}</legend>
          <div className="mt-1.5 space-y-1 text-sm">
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={form.read}
                onChange={(e) => update("read", e.target.checked)}
                className="h-4 w-4 accent-indigo-600"
                data-testid="role-field-permission-read"
              />
              {t("editor.field.permissions.read")}
            </label>
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={form.write}
                onChange={(e) => update("write", e.target.checked)}
                className="h-4 w-4 accent-indigo-600"
                data-testid="role-field-permission-write"
              />
              {t("editor.field.permissions.write")}
            </label>
            <label className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={form.execute}
                onChange={(e) => update("execute", e.target.checked)}
                className="h-4 w-4 accent-indigo-600"
                data-testid="role-field-permission-execute"
              />
              {t("editor.field.permissions.execute")}
            </label>
          </div>
          <FieldError id={`${fid("permissions")}-error`} message={errorFor("permissions")} testId="role-error-permissions" />
        </fieldset>
        <Field
          label={t("editor.field.maxConcurrency")}
          htmlFor={fid("max_concurrency")}
          hint={t("editor.field.maxConcurrency.hint")}
          error={errorFor("max_concurrency")}
          name="max_concurrency"
        >
          <input
            id={fid("max_concurrency")}
            type="number"
            min={1}
            max={64}
            step={1}
            className={`${inputClass} w-32`}
            value={form.max_concurrency}
            onChange={(e) => update("max_concurrency", e.target.value)}
            aria-invalid={errorFor("max_concurrency") ? true : undefined}
            aria-describedby={`${fid("max_concurrency")}-hint ${fid("max_concurrency")}-error`}
            data-testid="role-field-max-concurrency"
          />
        </Field>
      </div>

      {role ? <RoleAbilities provides={role.fields.provides} /> : null}
      {role ? <ExtraFieldsTable extra={role.extra} /> : null}

      <PromptBodyField value={form.body} onChange={(v) => update("body", v)} />

      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className={buttonPrimary} disabled={mutation.isPending} data-testid="role-save">
          {mutation.isPending
            ? role
              ? t("common.saving")
              : t("editor.creating")
            : role
              ? t("editor.save")
              : t("editor.create")}
        </button>
        {submitted && hasClientErrors ? (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400" data-testid="role-fix-errors">
            {t("editor.fixErrors")}
          </p>
        ) : null}
      </div>
    </form>
  );
}

function Field({
  label,
  htmlFor,
  hint,
  error,
  name,
  wide,
  children,
}: {
  label: string;
  htmlFor: string;
  hint?: string;
  error: string | undefined;
  name: RoleFieldName;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={wide ? "md:col-span-2" : undefined}>
      <label htmlFor={htmlFor} className={labelClass}>
        {label}
      </label>
      <div className="mt-1">{children}</div>
      {hint ? (
        <p id={`${htmlFor}-hint`} className={hintClass}>
          {hint}
        </p>
      ) : null}
      <FieldError id={`${htmlFor}-error`} message={error} testId={`role-error-${name.replace(/_/g, "-")}`} />
    </div>
  );
}

/** What the model field resolves to (a registered model, an alias and what it stands for, or a fallback). */
function ModelResolution({ name, list }: { name: string; list: ModelList }) {
  const t = useT();
  const { text, warning } = modelResolutionText(name, list, t);
  return (
    <p className={`mt-1 text-xs ${warning ? "text-amber-700 dark:text-amber-300" : "text-zinc-500 dark:text-zinc-400"}`} data-testid="role-model-resolves" data-warning={warning ? "true" : "false"}>
      {text}
    </p>
  );
}

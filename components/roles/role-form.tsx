"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useMemo, useState, type FormEvent } from "react";
import type { RoleDetail } from "@/lib/roles/schema";
import { ApiError, createRole, mcpServersQuery, modelListQuery, roleKeys, tooLongText, updateRole } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { badgeClass, buttonPrimary, inputClass } from "@/components/ui/styles";
import { ExtraFieldsTable } from "./extra-fields-table";
import { Field, ModelResolution, PermissionsField, TextField } from "./role-form-fields";
import { RoleAbilities } from "./role-abilities";
import { PromptBodyField } from "./prompt-body-field";
import { RoleToolMapping } from "./role-tool-mapping";
import { roleToolAccess } from "@/lib/roles/tool-mapping";
import {
  EMPTY_FORM,
  fieldsFromForm,
  formFromFields,
  serverErrors,
  splitTags,
  splitTools,
  validateFields,
  type RoleFieldName,
  type RoleFormState,
} from "./role-form-state";

type Errors = Partial<Record<RoleFieldName, string>>;
/** The form's text inputs. */
type TextKey = { [K in keyof RoleFormState]: string extends RoleFormState[K] ? K : never }[keyof RoleFormState];

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
  const locale = useLocale();
  const uid = useId();
  // The role's texts over their limits, named in the page's language.
  const tooLong = (field: RoleFieldName | "body", max: number) => (field === "name" || field === "description" || field === "body" ? tooLongText(t, locale, field, max) : undefined);
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
  const validation = validateFields(fields, tooLong);
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
      if (error.fieldIssues.length > 0) setServer(serverErrors(error.fieldIssues, tooLong));
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
  /** What every text field of `name` takes from the form: its id, value, error and setter. */
  const field = <K extends RoleFieldName & TextKey>(name: K) => ({
    id: fid(name),
    name,
    value: form[name],
    error: errorFor(name),
    onChange: (value: string) => update(name, value),
  });
  const tags = splitTags(form.capabilities);
  const undeclared = declaredServers ? splitTools(form.mcp_servers).filter((m) => !declaredServers.includes(m)) : [];
  // Tools, when named, decide the permissions (as the runtime reads the file): the checkboxes show what they give.
  const formTools = splitTools(form.tools);
  const toolsGive = formTools.length > 0 ? roleToolAccess({ tools: formTools }).permissions : undefined;

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
        <TextField
          {...field("id")}
          label={t("editor.field.id")}
          hint={t("editor.field.id.hint")}
          testId="role-field-id"
          code
          className="read-only:bg-zinc-100 read-only:text-zinc-500 dark:read-only:bg-zinc-800 dark:read-only:text-zinc-400"
          readOnly={Boolean(role)}
        />
        <TextField {...field("name")} label={t("editor.field.name")} testId="role-field-name" />
        <TextField {...field("description")} label={t("editor.field.description")} hint={t("editor.field.description.hint")} testId="role-field-description" multiline />
        <TextField
          {...field("model")}
          label={t("editor.field.model")}
          hint={t("editor.field.model.hint")}
          testId="role-field-model"
          code
          list={fid("models")}
          placeholder={t("roles.model.conversation")}
          after={
            <>
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
            </>
          }
        />
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
        <TextField
          {...field("capabilities")}
          label={t("editor.field.capabilities")}
          hint={t("editor.field.capabilities.hint")}
          testId="role-field-capabilities"
          spellCheck={false}
          autoComplete="off"
          after={
            tags.length > 0 ? (
              <ul className="mt-1.5 flex flex-wrap gap-1" aria-hidden data-testid="role-capability-tags" translate="no">
                {tags.map((tag, i) => (
                  <li key={`${tag}-${i}`} className={`${badgeClass} bg-indigo-50 text-indigo-700 dark:bg-indigo-500/15 dark:text-indigo-300`}>
                    {tag}
                  </li>
                ))}
              </ul>
            ) : null
          }
        />
        <TextField
          {...field("tools")}
          label={t("editor.field.tools")}
          hint={t("editor.field.tools.hint")}
          testId="role-field-tools"
          code
          after={
            <RoleToolMapping
              tools={formTools}
              permissions={[form.read ? "read" : "", form.write ? "write" : "", form.execute ? "execute" : ""]}
              testId="role-editor-tool-mapping"
              declaredServers={declaredServers}
            />
          }
        />
        <TextField
          {...field("mcp_servers")}
          label={t("editor.field.mcpServers")}
          hint={t("editor.field.mcpServers.hint")}
          testId="role-field-mcp-servers"
          code
          after={
            undeclared.length > 0 ? (
              <p className="mt-1 text-xs text-amber-700 dark:text-amber-400" data-testid="role-field-mcp-servers-warning">
                ⚠ {undeclared.map((m) => t("roles.toolMap.mcpUndeclared", { server: m })).join("; ")}
              </p>
            ) : null
          }
        />
        <TextField {...field("gateway")} label={t("editor.field.gateway")} hint={t("editor.field.gateway.hint")} testId="role-field-gateway" code />
        <PermissionsField id={fid("permissions")} form={form} fromTools={toolsGive} error={errorFor("permissions")} onChange={(p, checked) => update(p, checked)} />
        <TextField
          {...field("max_concurrency")}
          label={t("editor.field.maxConcurrency")}
          hint={t("editor.field.maxConcurrency.hint")}
          testId="role-field-max-concurrency"
          type="number"
          min={1}
          max={64}
          step={1}
          className="w-32"
        />
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

"use client";

/**
 * The role form's field pieces: the labelled frame every field shares (label, hint, error), a
 * text input wired to it, the permission checkboxes and the model field's resolution line.
 */
import type { InputHTMLAttributes, ReactNode } from "react";
import type { ModelList } from "@/lib/contracts/http";
import { modelResolutionText } from "@/lib/client/model-resolution";
import { useT } from "@/lib/i18n";
import { FieldError } from "@/components/ui/field-error";
import { hintClass, inputClass, labelClass } from "@/components/ui/styles";
import type { RoleFieldName, RoleFormState } from "./role-form-state";

/** A field's label, control, hint and error, laid out in the form's grid. */
export function Field({
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

/** The accessibility attributes of a control with an optional hint and an error. */
function described(id: string, hint: string | undefined, error: string | undefined) {
  return { "aria-invalid": error ? true : undefined, "aria-describedby": hint ? `${id}-hint ${id}-error` : `${id}-error` };
}

/**
 * A text field. `code`: a name, a key or a list of them (monospace, no spell check or
 * autocomplete). `multiline`: a text area across the grid. `after`: what shows under the input
 * (tags, a mapping, a warning).
 */
export function TextField({
  id,
  name,
  label,
  hint,
  error,
  value,
  onChange,
  testId,
  code,
  multiline,
  className,
  after,
  ...input
}: {
  id: string;
  name: RoleFieldName;
  label: string;
  hint?: string;
  error: string | undefined;
  value: string;
  onChange: (value: string) => void;
  testId: string;
  code?: boolean;
  multiline?: boolean;
  className?: string;
  after?: ReactNode;
} & Pick<InputHTMLAttributes<HTMLInputElement>, "readOnly" | "placeholder" | "list" | "type" | "min" | "max" | "step" | "spellCheck" | "autoComplete">) {
  const shared = { id, value, ...described(id, hint, error), "data-testid": testId };
  return (
    <Field label={label} htmlFor={id} hint={hint} error={error} name={name} wide={multiline}>
      {multiline ? (
        <textarea {...shared} className={`${inputClass} min-h-20`} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input
          {...shared}
          className={`${inputClass}${code ? " font-mono" : ""}${className ? ` ${className}` : ""}`}
          onChange={(e) => onChange(e.target.value)}
          {...(code ? { spellCheck: false, autoComplete: "off" } : {})}
          {...input}
        />
      )}
      {after}
    </Field>
  );
}

type Permission = "read" | "write" | "execute";

/**
 * The read, write and execute checkboxes. While the Tools field names tools they alone decide
 * (lib/roles/tool-mapping): `fromTools` is what they give, shown ticked and read-only, and the
 * file's own `permissions:` are kept for when Tools is cleared.
 */
export function PermissionsField({
  id,
  form,
  fromTools,
  error,
  onChange,
}: {
  id: string;
  form: Pick<RoleFormState, Permission>;
  fromTools: readonly Permission[] | undefined;
  error: string | undefined;
  onChange: (permission: Permission, checked: boolean) => void;
}) {
  const t = useT();
  return (
    <fieldset>
      <legend className={labelClass}>{t("editor.field.permissions")}</legend>
      <div className="mt-1.5 space-y-1 text-sm">
        {(["read", "write", "execute"] as const).map((p) => (
          <label key={p} className={`flex items-center gap-2 ${fromTools ? "text-zinc-500 dark:text-zinc-400" : ""}`}>
            <input
              type="checkbox"
              checked={fromTools ? fromTools.includes(p) : form[p]}
              disabled={fromTools !== undefined}
              onChange={(e) => onChange(p, e.target.checked)}
              className="h-4 w-4 accent-indigo-600"
              data-testid={`role-field-permission-${p}`}
            />
            {t(`editor.field.permissions.${p}`)}
          </label>
        ))}
      </div>
      {fromTools ? (
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400" data-testid="role-permissions-from-tools">
          {t("editor.field.permissions.fromTools")}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} testId="role-error-permissions" />
    </fieldset>
  );
}

/** What the model field resolves to (a registered model, an alias and what it stands for, or a fallback). */
export function ModelResolution({ name, list }: { name: string; list: ModelList }) {
  const t = useT();
  const { text, warning } = modelResolutionText(name, list, t);
  return (
    <p className={`mt-1 text-xs ${warning ? "text-amber-700 dark:text-amber-300" : "text-zinc-500 dark:text-zinc-400"}`} data-testid="role-model-resolves" data-warning={warning ? "true" : "false"}>
      {text}
    </p>
  );
}

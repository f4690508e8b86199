"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import { addModelEntry, ApiError, fetchUpstreamModels, saveModelEntry } from "@/lib/client";
import { useT } from "@/lib/i18n";
import type { ModelSettings, UpstreamError } from "@/lib/model-settings/schema";
import { PROVIDER_PROFILES } from "@/lib/models/schema";
import { Banner } from "@/components/ui/banner";
import { FieldError } from "@/components/ui/field-error";
import { buttonPrimary, buttonSecondary, hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { bodyFromForm, isStale, refusalsOf, type ModelFormField, type ModelFormState } from "./model-form";

const THINKING = ["none", "enable_thinking", "reasoning_effort"] as const;
const PROVIDERS = [...PROVIDER_PROFILES, "openai-compatible", "offline"] as const;

/**
 * Adds or edits one entry of models.json. It sends the etag the page read: a file edited by hand
 * meanwhile is refused (409) and the person is told to reload, never overwritten.
 */
export function ModelEntryForm({ initial, isNew, settings, onSaved, onCancel, onStale }: {
  initial: ModelFormState;
  isNew: boolean;
  settings: ModelSettings;
  onSaved: (next: ModelSettings) => void;
  onCancel: () => void;
  onStale: () => void;
}) {
  const t = useT();
  const uid = useId();
  const [form, setForm] = useState<ModelFormState>(initial);
  const [errors, setErrors] = useState<Partial<Record<ModelFormField, string>>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [upstream, setUpstream] = useState<{ models: string[]; error: string | null } | null>(null);
  const upstreamError = (error: UpstreamError): string => {
    switch (error.code) {
      case "timeout":
        return t("settings.models.upstream.timeout", { seconds: error.seconds });
      case "unreachable":
        return t("settings.models.upstream.unreachable");
      case "unauthorized":
        return t("settings.models.upstream.unauthorized", { status: error.status });
      case "http":
        return t("settings.models.upstream.http", { status: error.status, detail: error.detail });
      case "too_large":
        return t("settings.models.upstream.tooLarge");
      case "not_a_list":
        return t("settings.models.upstream.notAList");
    }
  };
  const set = <K extends keyof ModelFormState>(key: K, value: ModelFormState[K]) => setForm((f) => ({ ...f, [key]: value }));

  const save = useMutation({
    mutationFn: async () => {
      const built = bodyFromForm(form, isNew);
      if (!built.ok) {
        setErrors(Object.fromEntries(Object.entries(built.errors).map(([f, k]) => [f, t(k)])));
        return null;
      }
      setErrors({});
      if (isNew) {
        const apiKey = built.api_key.mode === "keep" ? { mode: "none" as const } : built.api_key;
        return addModelEntry({ key: built.key, entry: built.entry, api_key: apiKey, etag: settings.etag });
      }
      return saveModelEntry(form.key, { entry: built.entry, api_key: built.api_key, etag: settings.etag });
    },
    onSuccess: (next) => {
      if (next) onSaved(next);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.isConflict && isStale(error.details)) return onStale();
      const refusals = error instanceof ApiError ? refusalsOf(error.details) : [];
      if (refusals.length === 0) return setProblem(error.message);
      const next: Partial<Record<ModelFormField, string>> = {};
      for (const r of refusals) next[r.path === "entry.fallback" ? "fallback" : "key"] = t(r.key, { name: r.name });
      setErrors(next);
    },
  });

  const list = useMutation({
    mutationFn: () => {
      const key = form.keyMode === "stored" ? { mode: "stored" as const, value: form.keyValue } : form.keyMode === "env" ? { mode: "env" as const, env: form.keyEnv } : undefined;
      return fetchUpstreamModels({ base_url: form.base_url.trim(), ...(isNew ? {} : { key: form.key }), ...(key ? { api_key: key } : form.keyMode === "none" ? { api_key: { mode: "none" as const } } : {}) });
    },
    onSuccess: (answer) => setUpstream({ models: answer.models, error: answer.error ? upstreamError(answer.error) : null }),
    onError: (error) => setUpstream({ models: [], error: error.message }),
  });

  const field = (name: ModelFormField, label: string, input: ReactNode, hint?: string) => (
    <div>
      <label className={labelClass} htmlFor={`${uid}-${name}`}>
        {label}
      </label>
      <div className="mt-1">{input}</div>
      {hint ? <p className={hintClass}>{hint}</p> : null}
      <FieldError id={`${uid}-${name}-error`} message={errors[name]} testId={`model-error-${name}`} />
    </div>
  );
  const textInput = (name: keyof ModelFormState, id: ModelFormField | string, extra: { mono?: boolean; type?: string; disabled?: boolean } = {}) => (
    <input
      id={`${uid}-${id}`}
      className={`${inputClass} ${extra.mono ? "font-mono" : ""}`}
      type={extra.type ?? "text"}
      value={form[name] as string}
      disabled={extra.disabled}
      onChange={(e) => set(name, e.target.value as never)}
      spellCheck={false}
      autoComplete="off"
      data-testid={`model-field-${name}`}
    />
  );
  const others = settings.entries.filter((e) => e.key !== form.key).map((e) => e.key);

  return (
    <form
      className="mt-3 space-y-3 rounded-md border border-indigo-200 p-3 dark:border-indigo-800"
      data-testid="model-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setProblem(null);
        save.mutate();
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        {field("key", t("settings.models.field.key"), textInput("key", "key", { mono: true, disabled: !isNew }), t("settings.models.field.key.hint"))}
        {field("label", t("settings.models.field.label"), textInput("label", "label"))}
        <div>
          <label className={labelClass} htmlFor={`${uid}-provider`}>
            {t("settings.models.field.provider")}
          </label>
          <select id={`${uid}-provider`} className={`${inputClass} mt-1`} value={form.provider} onChange={(e) => set("provider", e.target.value as ModelFormState["provider"])} data-testid="model-field-provider">
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {p === "openai-compatible" ? t("settings.models.provider.guess") : p}
              </option>
            ))}
          </select>
        </div>
        {field("base_url", t("settings.models.field.baseUrl"), textInput("base_url", "base_url", { mono: true }), t("settings.models.field.baseUrl.hint"))}
      </div>
      <div>
        {field(
          "model",
          t("settings.models.field.model"),
          <div className="flex gap-2">
            <input id={`${uid}-model`} list={`${uid}-models`} className={`${inputClass} font-mono`} value={form.model} onChange={(e) => set("model", e.target.value)} spellCheck={false} autoComplete="off" data-testid="model-field-model" />
            <datalist id={`${uid}-models`}>
              {upstream?.models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
            <button type="button" className={buttonSecondary} disabled={!form.base_url.trim() || list.isPending} onClick={() => list.mutate()} data-testid="model-fetch-list">
              {list.isPending ? t("settings.models.field.model.fetching") : t("settings.models.field.model.fetch")}
            </button>
          </div>,
        )}
        {upstream ? (
          <p className={hintClass} data-testid="model-upstream">
            {upstream.error ? t("settings.models.field.model.fetchFailed", { error: upstream.error }) : t("settings.models.field.model.found", { n: upstream.models.length })}
          </p>
        ) : null}
      </div>
      <fieldset className="space-y-2">
        <legend className={labelClass}>{t("settings.models.field.apiKey")}</legend>
        <div className="flex flex-wrap gap-3 text-sm" data-testid="model-key-mode">
          {(initial.keyMode === "keep" ? (["keep", "stored", "env", "none"] as const) : (["none", "env", "stored"] as const)).map((mode) => (
            <label key={mode} className="inline-flex items-center gap-1.5">
              <input type="radio" name={`${uid}-key-mode`} value={mode} checked={form.keyMode === mode} onChange={() => set("keyMode", mode)} data-testid={`model-key-mode-${mode}`} />
              {t(`settings.models.key.${mode}`)}
            </label>
          ))}
        </div>
        {form.keyMode === "env" ? field("keyEnv", t("settings.models.field.keyEnv"), textInput("keyEnv", "keyEnv", { mono: true })) : null}
        {form.keyMode === "stored" ? field("keyValue", t("settings.models.field.keyValue"), textInput("keyValue", "keyValue", { mono: true, type: "password" })) : null}
        <p className={hintClass}>{t("settings.models.key.hint")}</p>
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-3">
        <div>
          <label className={labelClass} htmlFor={`${uid}-thinking`}>
            {t("settings.models.field.thinking")}
          </label>
          <select id={`${uid}-thinking`} className={`${inputClass} mt-1`} value={form.thinking_style} onChange={(e) => set("thinking_style", e.target.value as ModelFormState["thinking_style"])} data-testid="model-field-thinking">
            {THINKING.map((s) => (
              <option key={s} value={s}>
                {t(`settings.models.thinking.${s}`)}
              </option>
            ))}
          </select>
        </div>
        {field("max_concurrency", t("settings.models.field.concurrency"), textInput("max_concurrency", "max_concurrency", { type: "number" }))}
        <div>
          <label className={labelClass} htmlFor={`${uid}-fallback`}>
            {t("settings.models.field.fallback")}
          </label>
          <select id={`${uid}-fallback`} className={`${inputClass} mt-1`} value={form.fallback} onChange={(e) => set("fallback", e.target.value)} data-testid="model-field-fallback">
            <option value="">{t("settings.models.field.fallback.none")}</option>
            {[...new Set([...others, ...(form.fallback ? [form.fallback] : [])])].map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
          <FieldError id={`${uid}-fallback-error`} message={errors.fallback} testId="model-error-fallback" />
        </div>
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        {field("timeouts", t("settings.models.field.firstResponse"), textInput("first_response_ms", "timeouts", { type: "number" }), t("settings.models.field.timeouts.hint"))}
        <div>
          <label className={labelClass} htmlFor={`${uid}-idle`}>
            {t("settings.models.field.idle")}
          </label>
          <div className="mt-1">{textInput("idle_ms", "idle", { type: "number" })}</div>
        </div>
      </div>
      <fieldset>
        <legend className={labelClass}>{t("settings.models.field.prices")}</legend>
        <div className="mt-1 grid gap-3 sm:grid-cols-3">
          {(
            [
              ["price_input", "settings.models.field.priceInput"],
              ["price_cached", "settings.models.field.priceCached"],
              ["price_output", "settings.models.field.priceOutput"],
            ] as const
          ).map(([name, label]) => (
            <div key={name}>
              <label className="text-xs text-zinc-600 dark:text-zinc-400" htmlFor={`${uid}-${name}`}>
                {t(label)}
              </label>
              {textInput(name, name, { type: "number" })}
            </div>
          ))}
        </div>
        <FieldError id={`${uid}-prices-error`} message={errors.prices} testId="model-error-prices" />
      </fieldset>
      {problem ? (
        <Banner tone="error" testId="model-form-error">
          {problem}
        </Banner>
      ) : null}
      <div className="flex gap-2">
        <button type="submit" className={buttonPrimary} disabled={save.isPending} data-testid="model-save">
          {t("settings.models.save")}
        </button>
        <button type="button" className={buttonSecondary} onClick={onCancel}>
          {t("settings.models.cancel")}
        </button>
      </div>
    </form>
  );
}

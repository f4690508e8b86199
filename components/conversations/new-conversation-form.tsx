"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { CreateConversationBodySchema, projectFolderIssueOf, type ProjectFolderIssue } from "@/lib/contracts/http";
import type { RunMode } from "@/lib/contracts/on-disk";
import { ApiError, conversationKeys, createConversation, issueText, modelListQuery } from "@/lib/client";
import { zodIssues } from "@/lib/contracts/errors";
import { useLocale, useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { LocalModelOffer } from "./local-model-offer";
import { FieldError } from "@/components/ui/field-error";
import { buttonPrimary, buttonSecondary, hintClass, inputClass, labelClass } from "@/components/ui/styles";

const RUN_MODES: readonly RunMode[] = ["fast", "thinking", "deep"];
type FieldName = "title" | "project_path" | "model_key" | "run_mode" | "goal";
const FIELD_NAMES: readonly string[] = ["title", "project_path", "model_key", "run_mode", "goal"];

/**
 * The "New conversation" form: creates the conversation and opens it. With a goal, the same
 * request sends it to the Team Leader, so the page opens on a team already at work.
 */
export function NewConversationForm({ onCancel }: { onCancel: () => void }) {
  const t = useT();
  const locale = useLocale();
  const router = useRouter();
  const queryClient = useQueryClient();
  const uid = useId();
  const models = useQuery(modelListQuery());
  const [title, setTitle] = useState("");
  const [projectPath, setProjectPath] = useState("");
  const [modelKey, setModelKey] = useState<string | undefined>(undefined);
  const [runMode, setRunMode] = useState<RunMode>("fast");
  const [goal, setGoal] = useState("");
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [formError, setFormError] = useState<string | undefined>(undefined);
  // A refused project folder is explained in the reader's language from the API's stable reason.
  const [folderRefusal, setFolderRefusal] = useState<{ issue: ProjectFolderIssue; path: string } | null>(null);

  const selectedModel = modelKey ?? models.data?.default_key ?? "";

  /** An issue's words: a limit named in the page's language (title, project folder), else its message. */
  const fieldIssueText = (issue: { code?: string; limit?: number; message: string }, field: FieldName) =>
    field === "title" || field === "project_path" || field === "goal" ? issueText(issue, t, locale, field === "project_path" ? "projectPath" : field) : issue.message;

  const mutation = useMutation({
    mutationFn: createConversation,
    onSuccess: async (conversation) => {
      await queryClient.invalidateQueries({ queryKey: conversationKeys.lists() });
      queryClient.setQueryData(conversationKeys.detail(conversation.id), conversation);
      router.push(`/conversations/${encodeURIComponent(conversation.id)}`);
    },
    onError: (error, variables) => {
      const issue = error instanceof ApiError ? projectFolderIssueOf(error.details) : null;
      setFolderRefusal(issue ? { issue, path: variables.project_path } : null);
      if (error instanceof ApiError && error.fieldIssues.length > 0) {
        const next: Partial<Record<FieldName, string>> = {};
        const unplaced: string[] = [];
        for (const issue of error.fieldIssues) {
          const field = issue.path.split(".")[0] as FieldName;
          if (FIELD_NAMES.includes(field)) next[field] ??= fieldIssueText(issue, field);
          else unplaced.push(issue.message);
        }
        setErrors(next);
        setFormError(unplaced.length > 0 ? unplaced.join("; ") : undefined);
      } else {
        setFormError(error.message);
      }
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setFormError(undefined);
    setFolderRefusal(null);
    const parsed = CreateConversationBodySchema.safeParse({
      title: title.trim() ? title : undefined,
      project_path: projectPath,
      model_key: selectedModel || undefined,
      run_mode: runMode,
      goal: goal.trim() ? goal : undefined,
    });
    if (!parsed.success) {
      const next: Partial<Record<FieldName, string>> = {};
      for (const issue of zodIssues(parsed.error)) {
        const field = issue.path.split(".")[0] as FieldName;
        next[field] ??= fieldIssueText(issue, field);
      }
      setErrors(next);
      return;
    }
    setErrors({});
    mutation.mutate(parsed.data);
  }

  const fieldId = (name: FieldName) => `${uid}-${name}`;

  return (
    <form
      onSubmit={submit}
      noValidate
      data-testid="new-conversation-form"
      className="space-y-4 rounded-lg border border-indigo-200 bg-indigo-50/40 p-4 dark:border-indigo-900 dark:bg-indigo-950/20"
    >
      <h2 className="text-base font-semibold">{t("conv.new.heading")}</h2>
      {formError ? (
        <Banner tone="error" testId="new-conversation-error">
          {formError}
        </Banner>
      ) : null}
      <LocalModelOffer onPicked={setModelKey} />
      <div className="grid gap-4 md:grid-cols-2">
        <div>
          <label htmlFor={fieldId("title")} className={labelClass}>
            {t("conv.field.title")}
          </label>
          <input
            id={fieldId("title")}
            className={`${inputClass} mt-1`}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            placeholder={t("conv.field.title.placeholder")}
            maxLength={200}
            aria-invalid={errors.title ? true : undefined}
            aria-describedby={`${fieldId("title")}-hint`}
            data-testid="new-conversation-title"
          />
          <p id={`${fieldId("title")}-hint`} className={hintClass}>
            {t("conv.field.title.hint")}
          </p>
          <FieldError id={`${fieldId("title")}-error`} message={errors.title} testId="new-conversation-title-error" />
        </div>
        <div>
          <label htmlFor={fieldId("project_path")} className={labelClass}>
            {t("conv.field.projectPath")}
          </label>
          <input
            id={fieldId("project_path")}
            className={`${inputClass} mt-1 font-mono`}
            value={projectPath}
            onChange={(e) => setProjectPath(e.target.value)}
            placeholder={t("conv.field.projectPath.placeholder")}
            required
            spellCheck={false}
            autoComplete="off"
            aria-invalid={errors.project_path ? true : undefined}
            aria-describedby={`${fieldId("project_path")}-hint ${fieldId("project_path")}-error`}
            data-testid="new-conversation-project-path"
          />
          <p id={`${fieldId("project_path")}-hint`} className={hintClass}>
            {t("conv.field.projectPath.hint")}
          </p>
          <FieldError
            id={`${fieldId("project_path")}-error`}
            message={
              folderRefusal
                ? t(`conv.projectPath.refused.${folderRefusal.issue.reason}`, { path: folderRefusal.path, folder: folderRefusal.issue.folder ?? "" })
                : errors.project_path
            }
            testId="new-conversation-project-path-error"
          />
        </div>
        <div>
          <label htmlFor={fieldId("model_key")} className={labelClass}>
            {t("conv.field.model")}
          </label>
          <select
            id={fieldId("model_key")}
            className={`${inputClass} mt-1`}
            value={selectedModel}
            onChange={(e) => setModelKey(e.target.value)}
            disabled={!models.data}
            aria-invalid={errors.model_key ? true : undefined}
            data-testid="new-conversation-model"
          >
            {!models.data ? <option value="">{t("common.loading")}</option> : null}
            {models.data?.models.map((m) => (
              <option key={m.key} value={m.key}>
                {!m.label || m.label === m.key ? m.key : m.label.includes(m.key) ? m.label : `${m.label} (${m.key})`}
                {m.offline && !`${m.key} ${m.label}`.toLowerCase().includes("offline") ? ` — ${t("common.offline")}` : ""}
                {!m.configured ? ` — ${t("settings.model.notConfigured")}` : ""}
              </option>
            ))}
          </select>
          {models.error ? <FieldError id={`${fieldId("model_key")}-load`} message={models.error.message} /> : null}
          <FieldError id={`${fieldId("model_key")}-error`} message={errors.model_key} />
        </div>
        <fieldset>
          <legend className={labelClass}>{t("conv.field.runMode")}</legend>
          <div className="mt-1 flex flex-wrap gap-2" data-testid="new-conversation-run-mode">
            {RUN_MODES.map((mode) => (
              <label
                key={mode}
                title={t(`runMode.${mode}.hint`)}
                className={`cursor-pointer rounded-md border px-3 py-1.5 text-sm has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-indigo-500 ${
                  runMode === mode
                    ? "border-indigo-500 bg-indigo-50 text-indigo-800 dark:bg-indigo-500/15 dark:text-indigo-200"
                    : "border-zinc-300 dark:border-zinc-600"
                }`}
              >
                <input
                  type="radio"
                  name={`${uid}-run-mode`}
                  value={mode}
                  checked={runMode === mode}
                  onChange={() => setRunMode(mode)}
                  className="sr-only"
                  data-testid={`new-conversation-run-mode-${mode}`}
                />
                {t(`runMode.${mode}`)}
              </label>
            ))}
          </div>
          <p className={hintClass}>{t(`runMode.${runMode}.hint`)}</p>
          <FieldError id={`${fieldId("run_mode")}-error`} message={errors.run_mode} />
        </fieldset>
        <div className="md:col-span-2">
          <label htmlFor={fieldId("goal")} className={labelClass}>
            {t("conv.field.goal")}
          </label>
          <textarea
            id={fieldId("goal")}
            className={`${inputClass} mt-1 min-h-20`}
            value={goal}
            onChange={(e) => setGoal(e.target.value)}
            placeholder={t("conv.field.goal.placeholder")}
            rows={3}
            aria-invalid={errors.goal ? true : undefined}
            aria-describedby={`${fieldId("goal")}-hint ${fieldId("goal")}-error`}
            data-testid="new-conversation-goal"
          />
          <p id={`${fieldId("goal")}-hint`} className={hintClass}>
            {t("conv.field.goal.hint")}
          </p>
          <FieldError id={`${fieldId("goal")}-error`} message={errors.goal} testId="new-conversation-goal-error" />
        </div>
      </div>
      <div className="flex gap-2">
        <button type="submit" className={buttonPrimary} disabled={mutation.isPending} data-testid="new-conversation-submit">
          {mutation.isPending ? t("conv.new.creating") : goal.trim() ? t("conv.new.submitAndStart") : t("conv.new.submit")}
        </button>
        <button type="button" className={buttonSecondary} onClick={onCancel} data-testid="new-conversation-cancel">
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}

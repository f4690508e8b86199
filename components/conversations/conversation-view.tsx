"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import type { ConversationMetadata } from "@/lib/store/schemas";
import { PatchConversationBodySchema } from "@/lib/api/contract";
import { ApiError, conversationKeys, conversationQuery, deleteConversation, patchConversation } from "@/lib/client";
import { useLocale, useT } from "@/lib/i18n";
import { ModelName } from "@/components/models/model-name";
import { Banner } from "@/components/ui/banner";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FieldError } from "@/components/ui/field-error";
import { formatLocalTime } from "@/components/ui/format";
import { buttonDanger, buttonPrimary, buttonSecondary, cardClass, inputClass } from "@/components/ui/styles";
import { LeaderMessages } from "./leader-messages";
import { StatusBadge } from "./status-badge";

/** One conversation: its metadata (rename, archive, delete) and the leader's messages. */
export function ConversationView({ id }: { id: string }) {
  const t = useT();
  const query = useQuery(conversationQuery(id));

  if (query.isPending) return <p className="text-sm text-zinc-500">{t("common.loading")}</p>;
  if (query.isError) {
    const notFound = query.error instanceof ApiError && (query.error.status === 404 || query.error.code === "validation_failed");
    return (
      <div className="space-y-3">
        <BackLink />
        <Banner tone="error" testId="conversation-error">
          {notFound ? t("convPage.notFound") : t("common.loadFailed", { message: query.error.message })}
        </Banner>
      </div>
    );
  }
  return (
    <div className="space-y-6">
      <BackLink />
      <ConversationHeader conversation={query.data} />
      <LeaderMessages conversationId={id} />
    </div>
  );
}

function BackLink() {
  const t = useT();
  return (
    <Link href="/" className="text-sm text-indigo-600 hover:underline dark:text-indigo-300" data-testid="conversation-back">
      ← {t("convPage.back")}
    </Link>
  );
}

function ConversationHeader({ conversation }: { conversation: ConversationMetadata }) {
  const t = useT();
  const locale = useLocale();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [draft, setDraft] = useState(conversation.title);
  const [renameError, setRenameError] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);

  const applyUpdate = async (updated: ConversationMetadata) => {
    queryClient.setQueryData(conversationKeys.detail(updated.id), updated);
    await queryClient.invalidateQueries({ queryKey: conversationKeys.lists() });
  };

  const rename = useMutation({
    mutationFn: (title: string) => patchConversation(conversation.id, { title }),
    onSuccess: async (updated) => {
      setRenaming(false);
      await applyUpdate(updated);
    },
    onError: (error) => {
      const issue = error instanceof ApiError ? error.fieldIssues[0] : undefined;
      setRenameError(issue?.message ?? error.message);
    },
  });
  const toggle = useMutation({
    mutationFn: () =>
      patchConversation(conversation.id, { status: conversation.status === "active" ? "archived" : "active" }),
    onSuccess: applyUpdate,
  });
  const remove = useMutation({
    mutationFn: () => deleteConversation(conversation.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: conversationKeys.detail(conversation.id) });
      await queryClient.invalidateQueries({ queryKey: conversationKeys.lists() });
      router.push("/");
    },
  });

  function submitRename(e: FormEvent) {
    e.preventDefault();
    const parsed = PatchConversationBodySchema.safeParse({ title: draft });
    if (!parsed.success) {
      setRenameError(parsed.error.issues[0]?.message);
      return;
    }
    setRenameError(undefined);
    rename.mutate(parsed.data.title ?? draft);
  }

  return (
    <section className={`${cardClass} p-5`} data-testid="conversation-details">
      <div className="flex flex-wrap items-start gap-3">
        {renaming ? (
          <form onSubmit={submitRename} className="flex min-w-0 flex-1 flex-wrap items-start gap-2" noValidate>
            <div className="min-w-64 flex-1">
              <label htmlFor="conversation-title-input" className="sr-only">
                {t("convPage.titleLabel")}
              </label>
              <input
                id="conversation-title-input"
                className={inputClass}
                value={draft}
                onChange={(e) => setDraft(e.target.value)}
                maxLength={200}
                autoFocus
                aria-invalid={renameError ? true : undefined}
                data-testid="conversation-title-input"
              />
              <FieldError id="conversation-title-error" message={renameError} testId="conversation-title-error" />
            </div>
            <button type="submit" className={buttonPrimary} disabled={rename.isPending} data-testid="conversation-title-save">
              {rename.isPending ? t("common.saving") : t("common.save")}
            </button>
            <button
              type="button"
              className={buttonSecondary}
              onClick={() => {
                setRenaming(false);
                setRenameError(undefined);
              }}
            >
              {t("common.cancel")}
            </button>
          </form>
        ) : (
          <h1 className="min-w-0 flex-1 text-2xl font-semibold tracking-tight break-words" data-testid="conversation-title">
            {conversation.title || t("conv.untitled")}
          </h1>
        )}
        {!renaming ? (
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={buttonSecondary}
              onClick={() => {
                setDraft(conversation.title);
                setRenaming(true);
              }}
              data-testid="conversation-rename"
            >
              {t("convPage.rename")}
            </button>
            <button
              type="button"
              className={buttonSecondary}
              onClick={() => toggle.mutate()}
              disabled={toggle.isPending}
              data-testid={conversation.status === "active" ? "conversation-archive" : "conversation-unarchive"}
            >
              {conversation.status === "active" ? t("conv.archive") : t("conv.unarchive")}
            </button>
            <button type="button" className={buttonDanger} onClick={() => setConfirming(true)} data-testid="conversation-delete">
              {t("convPage.delete")}
            </button>
          </div>
        ) : null}
      </div>
      {toggle.error ? (
        <div className="mt-3">
          <Banner tone="error">{toggle.error.message}</Banner>
        </div>
      ) : null}

      <dl className="mt-4 grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <Field label={t("convPage.projectPath")} wide>
          <code className="font-mono text-xs break-all" data-testid="conversation-project-path">
            {conversation.project_path}
          </code>
        </Field>
        <Field label={t("convPage.model")}>
          <ModelName modelKey={conversation.model_key} testId="conversation-model" />
        </Field>
        <Field label={t("convPage.runMode")}>
          <span data-testid="conversation-run-mode">{t(`runMode.${conversation.run_mode}`)}</span>
        </Field>
        <Field label={t("convPage.status")}>
          <StatusBadge status={conversation.status} />
        </Field>
        <Field label={t("convPage.phase")}>
          <span className="font-mono text-xs" data-testid="conversation-phase">
            {conversation.phase ?? "IDLE"}
          </span>
        </Field>
        <Field label={t("convPage.created")}>
          <time dateTime={conversation.created_at} title={conversation.created_at}>
            {formatLocalTime(conversation.created_at, locale)}
          </time>
        </Field>
        <Field label={t("convPage.updated")}>
          <time dateTime={conversation.updated_at} title={conversation.updated_at}>
            {formatLocalTime(conversation.updated_at, locale)}
          </time>
        </Field>
        <Field label={t("convPage.agentIds")}>
          <span data-testid="conversation-agent-ids">
            {conversation.agent_ids.length > 0 ? conversation.agent_ids.join(", ") : t("common.none")}
          </span>
        </Field>
        <Field label="id">
          <code className="font-mono text-xs" data-testid="conversation-id">
            {conversation.id}
          </code>
        </Field>
      </dl>

      <ConfirmDialog
        open={confirming}
        title={t("convPage.deleteTitle")}
        confirmLabel={t("convPage.deleteConfirm")}
        busy={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => remove.mutate()}
        onCancel={() => {
          setConfirming(false);
          remove.reset();
        }}
        testId="conversation-delete-dialog"
      >
        {t("convPage.deleteBody", { title: conversation.title || conversation.id })}
      </ConfirmDialog>
    </section>
  );
}

function Field({ label, children, wide }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? "sm:col-span-2 lg:col-span-3" : undefined}>
      <dt className="text-xs font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5">{children}</dd>
    </div>
  );
}

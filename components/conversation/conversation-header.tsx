"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { PatchConversationBodySchema } from "@/lib/contracts/http";
import { ApiError, conversationKeys, deleteConversation, patchConversation } from "@/lib/client";
import type { ConversationMetadata } from "@/lib/contracts/on-disk";
import { useT } from "@/lib/i18n";
import { StatusBadge } from "@/components/conversations/status-badge";
import { Banner } from "@/components/ui/banner";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FieldError } from "@/components/ui/field-error";
import { buttonGhost, buttonPrimary, buttonSecondary, inputClass } from "@/components/ui/styles";
import { ExportMenu } from "./export-menu";
import { ModelPicker } from "./model-picker";
import { buttonDangerGhost } from "./styles";

/**
 * The conversation's compact header: title (rename inline), phase and model on the side, the
 * rename / archive / delete actions, and a line of details (run mode, status, folder, id).
 */
export function ConversationHeader({
  conversation,
  indicators,
  modelLabel,
}: {
  conversation: ConversationMetadata;
  /** Phase and connection badges. */
  indicators: ReactNode;
  modelLabel: ReactNode;
}) {
  const t = useT();
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
    mutationFn: () => patchConversation(conversation.id, { status: conversation.status === "active" ? "archived" : "active" }),
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

  const small = "px-2 py-1 text-xs";
  return (
    <header className="space-y-1.5" data-testid="conversation-details">
      <Link href="/" className="text-xs text-indigo-600 hover:underline dark:text-indigo-300" data-testid="conversation-back">
        ← {t("convPage.back")}
      </Link>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
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
          <h1 className="min-w-0 truncate text-xl font-semibold tracking-tight" data-testid="conversation-title" title={conversation.title} translate="no">
            {conversation.title || t("conv.untitled")}
          </h1>
        )}
        {!renaming ? <div className="flex flex-wrap items-center gap-2">{indicators}</div> : null}
        {!renaming ? (
          <div className="ml-auto flex flex-wrap gap-1" role="group" aria-label={t("convPage.actions")}>
            <button
              type="button"
              className={`${buttonGhost} ${small}`}
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
              className={`${buttonGhost} ${small}`}
              onClick={() => toggle.mutate()}
              disabled={toggle.isPending}
              data-testid={conversation.status === "active" ? "conversation-archive" : "conversation-unarchive"}
            >
              {conversation.status === "active" ? t("conv.archive") : t("conv.unarchive")}
            </button>
            <ExportMenu conversationId={conversation.id} />
            <button
              type="button"
              className={`${buttonDangerGhost} ${small}`}
              onClick={() => setConfirming(true)}
              data-testid="conversation-delete"
            >
              {t("convPage.delete")}
            </button>
          </div>
        ) : null}
      </div>
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
        <span className="inline-flex items-center gap-1">
          <span>{t("convPage.model")}:</span>
          {modelLabel}
          <ModelPicker conversation={conversation} />
        </span>
        <span>
          {t("convPage.runMode")}: <span data-testid="conversation-run-mode">{t(`runMode.${conversation.run_mode}`)}</span>
        </span>
        <StatusBadge status={conversation.status} />
        <span className="inline-flex min-w-0 max-w-full items-center gap-1">
          <span className="shrink-0">{t("convPage.projectPath")}:</span>
          <code className="truncate font-mono" data-testid="conversation-project-path" title={conversation.project_path}>
            {conversation.project_path}
          </code>
        </span>
        <code className="font-mono opacity-70" data-testid="conversation-id">
          {conversation.id}
        </code>
      </p>
      {toggle.error ? <Banner tone="error">{toggle.error.message}</Banner> : null}

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
    </header>
  );
}

"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { ImportMode } from "@/lib/export/schema";
import { conversationKeys, importConversations, takenIds } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { Banner } from "@/components/ui/banner";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FilePickButton } from "@/components/ui/file-pick-button";
import { buttonPrimary, buttonSecondary } from "@/components/ui/styles";

/**
 * "Import .zip" on the conversation index: uploads an export zip as it is. When an id in it is
 * taken (409), a dialog offers to import it as a new copy, or to overwrite the existing
 * conversation after a second, explicit confirmation.
 */
export function ConversationImport() {
  const t = useT();
  const queryClient = useQueryClient();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [conflict, setConflict] = useState<{ taken: string[]; running: string[] } | null>(null);
  const [confirmOverwrite, setConfirmOverwrite] = useState(false);

  const mutation = useMutation({
    mutationFn: ({ zip, mode }: { zip: File; mode: ImportMode }) => importConversations(zip, mode),
    onSuccess: async () => {
      setConflict(null);
      setConfirmOverwrite(false);
      setFile(null);
      await queryClient.invalidateQueries({ queryKey: conversationKeys.lists() });
    },
    onError: (error, { mode }) => {
      const taken = takenIds(error);
      if (taken && mode === "same_id") setConflict(taken);
    },
  });

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const open = conflict !== null && !confirmOverwrite;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [conflict, confirmOverwrite]);

  function onFile(picked: File) {
    setFile(picked);
    setConflict(null);
    mutation.mutate({ zip: picked, mode: "same_id" });
  }

  function cancel() {
    setConflict(null);
    setConfirmOverwrite(false);
    setFile(null);
    mutation.reset();
  }

  const conflictShown = conflict !== null;
  const error = mutation.error && !conflictShown ? mutation.error.message : null;
  const done = mutation.data?.imported;

  return (
    <div className="flex flex-col items-end gap-2">
      <FilePickButton accept=".zip,application/zip" onFile={onFile} disabled={mutation.isPending} testId="conversation-import-input">
        {mutation.isPending ? t("import.importing") : t("import.open")}
      </FilePickButton>
      {done ? (
        <Banner tone="success" testId="conversation-import-done">
          {t("import.done", { titles: done.map((c) => `${c.title} (${c.id})`).join(", ") })}
        </Banner>
      ) : null}
      {error ? (
        <Banner tone="error" testId="conversation-import-error">
          {t("import.failed", { message: error })}
        </Banner>
      ) : null}

      <dialog
        ref={dialogRef}
        data-testid="conversation-import-conflict"
        aria-labelledby="conversation-import-conflict-title"
        onCancel={(e) => {
          e.preventDefault();
          cancel();
        }}
        className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-zinc-200 bg-white p-5 text-zinc-900 shadow-xl dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
      >
        <h2 id="conversation-import-conflict-title" className="text-base font-semibold">
          {t("import.conflictTitle")}
        </h2>
        <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">{t("import.conflictBody", { ids: conflict?.taken.join(", ") ?? "" })}</p>
        {conflict?.running.length ? (
          <p className="mt-2 text-sm text-amber-700 dark:text-amber-300">{t("import.conflictRunning", { ids: conflict.running.join(", ") })}</p>
        ) : null}
        {mutation.error && conflictShown && mutation.variables?.mode !== "same_id" ? (
          <p role="alert" className="mt-3 text-sm text-red-600 dark:text-red-400">
            {mutation.error.message}
          </p>
        ) : null}
        <div className="mt-5 flex flex-wrap justify-end gap-2">
          <button type="button" className={buttonSecondary} onClick={cancel} data-testid="conversation-import-cancel">
            {t("common.cancel")}
          </button>
          <button
            type="button"
            className={buttonSecondary}
            disabled={mutation.isPending || !file}
            onClick={() => setConfirmOverwrite(true)}
            data-testid="conversation-import-overwrite"
          >
            {t("import.overwrite")}
          </button>
          <button
            type="button"
            className={buttonPrimary}
            disabled={mutation.isPending || !file}
            onClick={() => file && mutation.mutate({ zip: file, mode: "new_id" })}
            data-testid="conversation-import-copy"
          >
            {mutation.isPending ? t("import.importing") : t("import.asCopy")}
          </button>
        </div>
      </dialog>

      <ConfirmDialog
        open={confirmOverwrite}
        title={t("import.conflictTitle")}
        confirmLabel={t("import.overwriteConfirm")}
        busyLabel={t("import.importing")}
        busy={mutation.isPending}
        error={mutation.error && mutation.variables?.mode === "overwrite" ? mutation.error.message : undefined}
        onConfirm={() => file && mutation.mutate({ zip: file, mode: "overwrite" })}
        onCancel={() => {
          setConfirmOverwrite(false);
          mutation.reset();
        }}
        testId="conversation-import-overwrite-dialog"
      >
        {t("import.overwriteBody", { ids: conflict?.taken.join(", ") ?? "" })}
      </ConfirmDialog>
    </div>
  );
}

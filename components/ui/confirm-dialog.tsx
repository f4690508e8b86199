"use client";

import { useEffect, useRef, type ReactNode } from "react";
import { useT } from "@/lib/i18n";
import { buttonDanger, buttonSecondary } from "./styles";

/**
 * A modal confirmation on the native `<dialog>` (focus trap, Escape to close, backdrop).
 * The caller owns `open`; confirming calls `onConfirm`, anything else calls `onCancel`.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busyLabel,
  busy,
  error,
  onConfirm,
  onCancel,
  testId = "confirm-dialog",
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** Shown on the confirm button while `busy` (default "Deleting…"). */
  busyLabel?: string;
  busy?: boolean;
  error?: string | undefined;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      data-testid={testId}
      aria-labelledby={`${testId}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-lg border border-zinc-200 bg-white p-5 text-zinc-900 shadow-xl dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <h2 id={`${testId}-title`} className="text-base font-semibold">
        {title}
      </h2>
      <div className="mt-2 text-sm text-zinc-600 dark:text-zinc-300">{children}</div>
      {error ? (
        <p role="alert" className="mt-3 text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      ) : null}
      <div className="mt-5 flex justify-end gap-2">
        <button type="button" className={buttonSecondary} onClick={onCancel} data-testid={`${testId}-cancel`}>
          {t("common.cancel")}
        </button>
        <button
          type="button"
          className={buttonDanger}
          onClick={onConfirm}
          disabled={busy}
          data-testid={`${testId}-confirm`}
        >
          {busy ? (busyLabel ?? t("common.deleting")) : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

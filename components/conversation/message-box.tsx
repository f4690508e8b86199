"use client";

import { useState, type KeyboardEvent, type ReactNode } from "react";
import { useT } from "@/lib/i18n";
import { buttonPrimary, inputClass } from "@/components/ui/styles";

/**
 * A textarea that sends on Enter (Shift+Enter for a new line) and is disabled while sending.
 * `onSend` resolves when the server took the text (it is then cleared) and rejects to keep it.
 */
export function MessageBox({
  label,
  placeholder,
  sendLabel,
  onSend,
  busy,
  error,
  inputTestId,
  sendTestId,
  rows = 2,
  extra,
}: {
  label: string;
  placeholder: string;
  sendLabel: string;
  onSend: (text: string) => Promise<unknown>;
  busy: boolean;
  error?: string | undefined;
  inputTestId: string;
  sendTestId: string;
  rows?: number;
  /** More buttons beside "Send" (the Stop button). */
  extra?: ReactNode;
}) {
  const t = useT();
  const [text, setText] = useState("");

  const send = async () => {
    const content = text.trim();
    if (!content || busy) return;
    try {
      await onSend(content);
      setText("");
    } catch {
      // The caller shows the error; the text stays so nothing typed is lost.
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  return (
    <form
      className="space-y-1.5"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label className="sr-only" htmlFor={inputTestId}>
        {label}
      </label>
      <div className="flex items-end gap-2">
        <textarea
          id={inputTestId}
          className={`${inputClass} min-h-10 resize-y`}
          rows={rows}
          value={text}
          placeholder={placeholder}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
          disabled={busy}
          aria-invalid={error ? true : undefined}
          data-testid={inputTestId}
        />
        <div className="flex shrink-0 flex-col gap-1.5">
          <button type="submit" className={`${buttonPrimary} whitespace-nowrap`} disabled={busy || !text.trim()} data-testid={sendTestId}>
            {busy ? t("live.sending") : sendLabel}
          </button>
          {extra}
        </div>
      </div>
      {error ? (
        <p role="alert" className="text-xs font-medium text-red-600 dark:text-red-400" data-testid={`${inputTestId}-error`}>
          {error}
        </p>
      ) : (
        <p className="text-[11px] text-zinc-400 dark:text-zinc-500">{t("live.enterHint")}</p>
      )}
    </form>
  );
}

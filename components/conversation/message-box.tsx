"use client";

import { useState, type KeyboardEvent, type ReactNode } from "react";
import { showsCounter, tooLongText, type InputField } from "@/lib/client/input-errors";
import { useLocale, useT } from "@/lib/i18n";
import { buttonPrimary, inputClass } from "@/components/ui/styles";

/**
 * A textarea that sends on Enter (Shift+Enter for a new line) and is disabled while sending.
 * `onSend` resolves when the server took the text (it is then cleared) and rejects to keep it.
 * With `maxLength`, a counter shows from 80% of the limit and a longer text is refused here, with
 * the sentence naming the limit, before anything is sent.
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
  maxLength,
  field = "message",
  onTyping,
  below,
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
  /** The most characters the server accepts (the body schema's `max`). */
  maxLength?: number | null;
  /** What the text is, for the sentence naming the limit. */
  field?: InputField;
  /** Presence's typing beats: `true` on every keystroke, `false` once the text was sent. */
  onTyping?: (typing: boolean) => void;
  /** Shown under the box (presence's "… is typing"). */
  below?: ReactNode;
}) {
  const t = useT();
  const locale = useLocale();
  const [text, setText] = useState("");
  const [tooLong, setTooLong] = useState(false);
  const max = maxLength ?? null;
  const length = text.trim().length;

  const send = async () => {
    const content = text.trim();
    if (!content || busy) return;
    if (max !== null && content.length > max) {
      setTooLong(true);
      return;
    }
    try {
      await onSend(content);
      setText("");
      onTyping?.(false);
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
          onChange={(e) => {
            setText(e.target.value);
            onTyping?.(true);
            if (tooLong && max !== null && e.target.value.trim().length <= max) setTooLong(false);
          }}
          onKeyDown={onKeyDown}
          disabled={busy}
          aria-invalid={error || tooLong ? true : undefined}
          data-testid={inputTestId}
        />
        <div className="flex shrink-0 flex-col gap-1.5">
          <button type="submit" className={`${buttonPrimary} whitespace-nowrap`} disabled={busy || !text.trim()} data-testid={sendTestId}>
            {busy ? t("live.sending") : sendLabel}
          </button>
          {extra}
        </div>
      </div>
      <div className="flex items-start justify-between gap-3">
        {tooLong && max !== null ? (
          <p role="alert" className="text-xs font-medium text-red-600 dark:text-red-400" data-testid={`${inputTestId}-error`}>
            {tooLongText(t, locale, field, max)}
          </p>
        ) : error ? (
          <p role="alert" className="text-xs font-medium text-red-600 dark:text-red-400" data-testid={`${inputTestId}-error`}>
            {error}
          </p>
        ) : (
          <p className="text-[11px] text-zinc-400 dark:text-zinc-500">{t("live.enterHint")}</p>
        )}
        {max !== null && showsCounter(length, max) ? (
          <p
            className={`shrink-0 text-[11px] tabular-nums ${length > max ? "font-semibold text-red-600 dark:text-red-400" : "text-zinc-500 dark:text-zinc-400"}`}
            data-testid={`${inputTestId}-counter`}
            data-over={length > max ? "true" : undefined}
          >
            {t("input.counter", { n: new Intl.NumberFormat(locale).format(length), max: new Intl.NumberFormat(locale).format(max) })}
          </p>
        ) : null}
      </div>
      {below}
    </form>
  );
}

"use client";

import type { Message, ToolCall } from "@/lib/contracts/on-disk";
import { useT } from "@/lib/i18n";
import { summarizeToolCall, toolResultError } from "./thread-items";

/**
 * One tool call: its name and key arguments (for `create_sub_agent`, the role and the task), with
 * the full arguments and the result folded inside. An `{"error": …}` result is shown in red.
 */
export function ToolCallCard({ call, result }: { call: ToolCall; result: Message | undefined }) {
  const t = useT();
  const name = call.function.name;
  const { args, keyArgs } = summarizeToolCall(name, call.function.arguments);
  const error = result ? toolResultError(result.content) : null;
  const status = !result ? "pending" : error ? "error" : "ok";
  const tone =
    status === "error"
      ? "border-red-300 bg-red-50/70 dark:border-red-800 dark:bg-red-950/30"
      : "border-zinc-200 bg-zinc-50/70 dark:border-zinc-700 dark:bg-zinc-800/40";
  return (
    <details
      className={`rounded-md border text-xs ${tone}`}
      data-testid="tool-call-card"
      data-tool-name={name}
      data-status={status}
    >
      <summary className="flex cursor-pointer list-none flex-wrap items-baseline gap-x-2 gap-y-0.5 px-3 py-1.5">
        <span aria-hidden className="text-zinc-400">
          ⚙
        </span>
        <code className="font-mono font-semibold text-zinc-800 dark:text-zinc-200">{name}</code>
        {keyArgs.map((a) => (
          // An argument's value is the model's own text (a path, a query, a task): data.
          <span key={a.name} className="min-w-0 max-w-full truncate text-zinc-600 dark:text-zinc-400" title={a.value} translate="no">
            <code className="text-zinc-400 dark:text-zinc-500">{a.name}=</code>
            {a.value.length > 140 ? `${a.value.slice(0, 140)}…` : a.value}
          </span>
        ))}
        <span className="ml-auto shrink-0">
          {status === "pending" ? (
            <span className="text-zinc-500 dark:text-zinc-400">{t("tool.running")}</span>
          ) : status === "error" ? (
            <span className="font-medium text-red-700 dark:text-red-300" data-testid="tool-call-error">
              {t("tool.failed")}
            </span>
          ) : (
            <span className="text-emerald-700 dark:text-emerald-300">{t("tool.done")}</span>
          )}
        </span>
      </summary>
      <div className="space-y-2 border-t border-inherit px-3 py-2">
        <div>
          <p className="mb-0.5 font-medium text-zinc-500 dark:text-zinc-400">{t("tool.arguments")}</p>
          <pre className="max-h-60 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px] text-zinc-700 dark:text-zinc-300">
            {args ? JSON.stringify(args, null, 2) : call.function.arguments}
          </pre>
        </div>
        {result ? (
          <div>
            <p className="mb-0.5 font-medium text-zinc-500 dark:text-zinc-400">{t("tool.result")}</p>
            {error ? (
              <p className="whitespace-pre-wrap font-mono text-[11px] text-red-700 dark:text-red-300">{error}</p>
            ) : (
              <pre className="max-h-72 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px] text-zinc-700 dark:text-zinc-300">
                {result.content}
              </pre>
            )}
          </div>
        ) : null}
      </div>
    </details>
  );
}

/** A tool result shown on its own because its call is not in view. */
export function OrphanToolResult({ message }: { message: Message }) {
  const t = useT();
  const error = toolResultError(message.content);
  return (
    <details
      className={`rounded-md border px-3 py-1.5 text-xs ${error ? "border-red-300 text-red-700 dark:border-red-800 dark:text-red-300" : "border-zinc-200 text-zinc-600 dark:border-zinc-700 dark:text-zinc-400"}`}
      data-testid="tool-result"
    >
      <summary className="cursor-pointer">{error ? t("tool.failed") : t("tool.result")}</summary>
      <pre className="mt-1 max-h-72 overflow-auto whitespace-pre-wrap break-words font-mono text-[11px]">{error ?? message.content}</pre>
    </details>
  );
}

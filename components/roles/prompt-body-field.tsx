"use client";

import { useId, useState } from "react";
import { useT } from "@/lib/i18n";
import { Markdown } from "@/components/ui/markdown";
import { hintClass, inputClass, labelClass } from "@/components/ui/styles";

/** The role's prompt: a Markdown textarea with Write / Preview tabs. */
export function PromptBodyField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const t = useT();
  const uid = useId();
  const [tab, setTab] = useState<"write" | "preview">("write");
  const tabs = [
    { key: "write", label: t("editor.body.write") },
    { key: "preview", label: t("editor.body.preview") },
  ] as const;
  return (
    <div>
      <div className="flex items-end justify-between gap-3">
        <label htmlFor={`${uid}-body`} className={labelClass}>
          {t("editor.body.title")}
        </label>
        <div role="tablist" aria-label={t("editor.body.title")} className="flex gap-1">
          {tabs.map((tb) => (
            <button
              key={tb.key}
              type="button"
              role="tab"
              id={`${uid}-tab-${tb.key}`}
              aria-selected={tab === tb.key}
              aria-controls={`${uid}-panel`}
              onClick={() => setTab(tb.key)}
              data-testid={`role-body-tab-${tb.key}`}
              className={`rounded-t-md border-b-2 px-3 py-1 text-sm ${
                tab === tb.key
                  ? "border-indigo-500 font-medium text-indigo-700 dark:text-indigo-300"
                  : "border-transparent text-zinc-500 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-100"
              }`}
            >
              {tb.label}
            </button>
          ))}
        </div>
      </div>
      <div id={`${uid}-panel`} role="tabpanel" aria-labelledby={`${uid}-tab-${tab}`} className="mt-1">
        {tab === "write" ? (
          <textarea
            id={`${uid}-body`}
            className={`${inputClass} min-h-72 font-mono text-[13px] leading-relaxed`}
            value={value}
            onChange={(e) => onChange(e.target.value)}
            spellCheck={false}
            data-testid="role-body"
          />
        ) : (
          <div
            className="min-h-72 rounded-md border border-zinc-300 bg-white px-4 py-3 dark:border-zinc-600 dark:bg-zinc-900"
            data-testid="role-body-preview"
          >
            {value.trim() ? (
              <Markdown>{value}</Markdown>
            ) : (
              <p className="text-sm text-zinc-500">{t("editor.body.previewEmpty")}</p>
            )}
          </div>
        )}
      </div>
      <p className={hintClass}>{t("editor.body.hint")}</p>
    </div>
  );
}

"use client";

import { useEffect, useRef, useState } from "react";
import { exportUrl } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { buttonGhost } from "@/components/ui/styles";

/**
 * "Export" in the conversation header: a small menu of two downloads, the Markdown report and the
 * zip of the conversation's folder. They are plain links to attachments, so the browser downloads
 * them itself (with the sign-in cookie when an access token is set).
 */
export function ExportMenu({ conversationId }: { conversationId: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === "Escape" : !ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    document.addEventListener("keydown", close);
    return () => {
      document.removeEventListener("mousedown", close);
      document.removeEventListener("keydown", close);
    };
  }, [open]);

  const item = "block whitespace-nowrap px-3 py-1.5 text-sm hover:bg-zinc-100 dark:hover:bg-zinc-800";
  return (
    <div className="relative" ref={ref}>
      <button
        type="button"
        className={`${buttonGhost} px-2 py-1 text-xs`}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
        data-testid="conversation-export"
      >
        {t("export.menu")} ▾
      </button>
      {open ? (
        <div
          role="menu"
          className="absolute right-0 z-20 mt-1 rounded-md border border-zinc-200 bg-white py-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
          data-testid="conversation-export-menu"
        >
          <a role="menuitem" className={item} href={exportUrl(conversationId, "md")} download onClick={() => setOpen(false)} data-testid="conversation-export-md">
            {t("export.markdown")}
          </a>
          <a role="menuitem" className={item} href={exportUrl(conversationId, "zip")} download onClick={() => setOpen(false)} data-testid="conversation-export-zip">
            {t("export.zip")}
          </a>
        </div>
      ) : null}
    </div>
  );
}

"use client";

import { translateParts, useLocale, type MessageKey } from "@/lib/i18n";

/**
 * A translated message whose filled-in values are data (a server's or a source's name, a provider
 * id, a command), each in a `translate="no"` span: the words around them are the UI's, the values
 * are the file's and stay as written.
 */
export function DataText({ k, vars }: { k: MessageKey; vars: Record<string, string | number> }) {
  const locale = useLocale();
  return (
    <>
      {translateParts(locale, k, vars).map((p, i) =>
        "text" in p ? (
          p.text
        ) : (
          <span key={i} translate="no" data-var={p.name}>
            {p.value}
          </span>
        ),
      )}
    </>
  );
}

"use client";

import type { AgentAction } from "@/lib/contracts/events";
import { actionText } from "@/lib/client/agent-actions";
import type { TranslateFn } from "@/lib/i18n/translate";

/** Stands for the target while the phrase is translated, so the target can be set apart. */
const SLOT = "\u0000";

/**
 * An action's phrase with its target (a path, a search, a command) set as code, as the issue's
 * own words show it ("reading `dist/pregel/loop.js`"): the target is the project's text, never
 * translated. `title` is the same phrase with the target between backticks.
 */
export function actionWords(action: Pick<AgentAction, "kind" | "target">, t: TranslateFn): { before: string; target: string; after: string; title: string } {
  const target = action.target ?? "";
  if (!target) {
    const text = actionText(action, t);
    return { before: text, target: "", after: "", title: text };
  }
  const phrase = actionText({ ...action, target: SLOT }, t);
  const at = phrase.indexOf(SLOT);
  if (at < 0) return { before: phrase, target: "", after: "", title: phrase };
  const before = phrase.slice(0, at);
  const after = phrase.slice(at + SLOT.length);
  return { before, target, after, title: `${before}\`${target}\`${after}` };
}

/** {@link actionWords} rendered: the target in a `<code>`. */
export function ActionWords({ action, t }: { action: Pick<AgentAction, "kind" | "target">; t: TranslateFn }) {
  const words = actionWords(action, t);
  return (
    <>
      {words.before}
      {words.target ? <code className="font-mono">{words.target}</code> : null}
      {words.after}
    </>
  );
}

"use client";

import type { PresentPerson } from "@/lib/contracts/presence";
import { useT } from "@/lib/i18n";
import { avatarColour, initialsOf } from "./avatar";

/** A person's round avatar: initials on their colour. */
function Avatar({ person, size = "md" }: { person: { id: string; name: string }; size?: "sm" | "md" }) {
  return (
    <span
      aria-hidden="true"
      className={`inline-flex shrink-0 items-center justify-center rounded-full font-semibold text-white ${size === "sm" ? "h-5 w-5 text-[9px]" : "h-7 w-7 text-[11px]"}`}
      style={{ backgroundColor: avatarColour(person.id) }}
    >
      {initialsOf(person.name)}
    </span>
  );
}

/**
 * Who else has the conversation open (this person's own tabs left out): an avatar and name each,
 * and which sub-agent's drawer they are viewing. Renders nothing while nobody else is here.
 */
export function PresenceBar({ others }: { others: readonly PresentPerson[] }) {
  const t = useT();
  if (others.length === 0) return null;
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-1.5 text-sm" data-testid="presence-bar" aria-label={t("presence.label")}>
      <span className="text-xs font-medium text-zinc-500 dark:text-zinc-400">{t("presence.label")}</span>
      {others.map((p) => (
        <span key={p.person.id} className="inline-flex items-center gap-1.5" data-testid={`presence-person-${p.person.id}`} data-drawers={p.drawers.join(",")}>
          <Avatar person={p.person} />
          <span className="font-medium" data-testid="presence-name">
            {p.person.name}
          </span>
          {p.drawers.map((id) => (
            <span key={id} className="rounded bg-zinc-100 px-1.5 py-0.5 text-[11px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300" data-testid="presence-drawer">
              {t("presence.drawer", { id })}
            </span>
          ))}
        </span>
      ))}
    </div>
  );
}

/** "Ann is typing…" under a composer: the others typing to `target` (the leader, or a sub-agent). */
export function TypingIndicator({ others, target, testId = "typing-indicator" }: { others: readonly PresentPerson[]; target: "leader" | number; testId?: string }) {
  const t = useT();
  const typing = others.filter((p) => p.typing.includes(target));
  if (typing.length === 0) return null;
  const names = typing.map((p) => p.person.name);
  return (
    <p className="flex items-center gap-1.5 text-xs text-zinc-500 italic dark:text-zinc-400" data-testid={testId} aria-live="polite">
      {typing.map((p) => (
        <Avatar key={p.person.id} person={p.person} size="sm" />
      ))}
      <span data-testid="typing-text">{names.length === 1 ? t("presence.typingOne", { name: names[0]! }) : t("presence.typingMany", { names: names.join(", ") })}</span>
    </p>
  );
}

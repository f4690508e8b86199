/**
 * What a role's `model` field resolves to, in words for the role editor: the conversation's model,
 * a registered model, an alias of `models.json` (and what it stands for), or a name the server
 * will not find. Pure: the same resolution the server makes (lib/models/aliases.ts).
 */
import type { ModelList } from "@/lib/contracts/http";
import type { TranslateFn } from "@/lib/i18n/translate";
import { resolveModelName } from "@/lib/models/aliases";

/** The sentence under the model field; `warning` when the server would fall back. */
export function modelResolutionText(name: string, list: ModelList, t: TranslateFn): { text: string; warning: boolean } {
  const label = (key: string) => list.models.find((m) => m.key === key)?.label ?? key;
  const r = resolveModelName(name, { keys: list.models.map((m) => m.key), aliases: list.aliases, default: list.default_key });
  switch (r.via) {
    case "conversation":
      return { text: t("roles.model.resolves.conversation"), warning: false };
    case "model":
      return { text: t("roles.model.resolves.model", { key: label(r.key) }), warning: false };
    case "alias":
      return r.key === null ? { text: t("roles.model.resolves.aliasConversation", { alias: r.alias }), warning: false } : { text: t("roles.model.resolves.alias", { alias: r.alias, key: label(r.key) }), warning: false };
    case "unknown":
      return { text: t("roles.model.resolves.unknown", { name: r.name }), warning: true };
  }
}

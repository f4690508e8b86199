/**
 * Model names a role file may give that are not keys of `models.json`: Claude Code's `sonnet`,
 * `opus`, `haiku` and `inherit`, through the `aliases` map of `models.json`. An alias names a
 * model key, or one of two words: {@link CONVERSATION_MODEL} (the conversation's model) and
 * {@link DEFAULT_MODEL} (the registry's default). Pure: the server resolves a role's model with
 * it, and the role editor shows what a role's model resolves to.
 */

/** An alias target meaning "the conversation's model". */
export const CONVERSATION_MODEL = "$conversation";
/** An alias target meaning "the registry's default model". */
export const DEFAULT_MODEL = "$default";

/**
 * The aliases every registry has unless its `aliases` map says otherwise (and what a new
 * `models.json` is seeded with): `inherit` is the conversation's model, and Claude Code's model
 * names are the default model until the person maps them to keys of their own.
 */
export const DEFAULT_ALIASES: Readonly<Record<string, string>> = { inherit: CONVERSATION_MODEL, sonnet: DEFAULT_MODEL, opus: DEFAULT_MODEL, haiku: DEFAULT_MODEL };

/** What a role's `model` resolves to. `key` null means the conversation's model. */
export type ModelResolution =
  | { via: "conversation"; key: null }
  | { via: "model"; key: string }
  | { via: "alias"; alias: string; key: string | null }
  | { via: "unknown"; name: string; key: null };

/** The registry parts the resolution needs. */
export interface AliasRegistry {
  /** The registered model keys. */
  keys: readonly string[];
  aliases?: Readonly<Record<string, string>>;
  default: string;
}

const own = (table: Readonly<Record<string, string>>, key: string) => (Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined);

/**
 * What a role's `model` names: nothing (the conversation's model), a registered key, an alias
 * (the file's `aliases` over {@link DEFAULT_ALIASES}) whose target resolves, or nothing known —
 * then the conversation's model is used and the person told why. A key of `models.json` wins over
 * an alias of the same name.
 */
export function resolveModelName(name: string | undefined, registry: AliasRegistry): ModelResolution {
  const wanted = name?.trim();
  if (!wanted) return { via: "conversation", key: null };
  if (registry.keys.includes(wanted)) return { via: "model", key: wanted };
  const target = (registry.aliases && own(registry.aliases, wanted)) ?? own(DEFAULT_ALIASES, wanted);
  if (target === undefined) return { via: "unknown", name: wanted, key: null };
  if (target === CONVERSATION_MODEL) return { via: "alias", alias: wanted, key: null };
  if (target === DEFAULT_MODEL) return { via: "alias", alias: wanted, key: registry.default };
  if (registry.keys.includes(target)) return { via: "alias", alias: wanted, key: target };
  return { via: "unknown", name: wanted, key: null };
}

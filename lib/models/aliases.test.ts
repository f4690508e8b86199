import { describe, expect, it } from "vitest";
import { CONVERSATION_MODEL, DEFAULT_ALIASES, DEFAULT_MODEL, resolveModelName } from "./aliases";
import { defaultModelsFile } from "./registry";

const registry = { keys: ["offline", "qwen", "claude"], default: "qwen" };

describe("a role's model name", () => {
  it("resolves Claude Code's names through the default aliases: inherit → the conversation's, the others → the default model", () => {
    expect(resolveModelName(undefined, registry)).toEqual({ via: "conversation", key: null });
    expect(resolveModelName("  ", registry)).toEqual({ via: "conversation", key: null });
    expect(resolveModelName("inherit", registry)).toEqual({ via: "alias", alias: "inherit", key: null });
    for (const name of ["sonnet", "opus", "haiku"]) expect(resolveModelName(name, registry)).toEqual({ via: "alias", alias: name, key: "qwen" });
  });

  it("follows the registry's own aliases over the defaults, and a model key over an alias of the same name", () => {
    const mapped = { ...registry, aliases: { sonnet: "claude", opus: CONVERSATION_MODEL, fast: "offline", broken: "gpt-9000" } };
    expect(resolveModelName("sonnet", mapped)).toEqual({ via: "alias", alias: "sonnet", key: "claude" });
    expect(resolveModelName("opus", mapped)).toEqual({ via: "alias", alias: "opus", key: null });
    expect(resolveModelName("haiku", mapped)).toEqual({ via: "alias", alias: "haiku", key: "qwen" });
    expect(resolveModelName("fast", mapped)).toEqual({ via: "alias", alias: "fast", key: "offline" });
    // an alias to a key that is not there is a name the server does not know
    expect(resolveModelName("broken", mapped)).toEqual({ via: "unknown", name: "broken", key: null });
    expect(resolveModelName("claude", { ...mapped, aliases: { claude: "offline" } })).toEqual({ via: "model", key: "claude" });
  });

  it("never takes an object's own properties for aliases", () => {
    expect(resolveModelName("constructor", registry)).toEqual({ via: "unknown", name: "constructor", key: null });
    expect(resolveModelName("__proto__", { ...registry, aliases: {} })).toEqual({ via: "unknown", name: "__proto__", key: null });
  });

  it("is seeded into a new models.json", () => {
    expect(defaultModelsFile().aliases).toEqual({ inherit: CONVERSATION_MODEL, sonnet: DEFAULT_MODEL, opus: DEFAULT_MODEL, haiku: DEFAULT_MODEL });
    expect(DEFAULT_ALIASES.inherit).toBe(CONVERSATION_MODEL);
  });
});

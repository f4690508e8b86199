import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { mergeEntry, putEntry, referencesTo, removeEntry, setDefault, type RawModelsFile } from "./edit";
import type { ModelEntryFields } from "./schema";

const fields: ModelEntryFields = { provider: "ollama", base_url: "http://127.0.0.1:11434/v1", model: "qwen3:8b", thinking_style: "none", max_concurrency: 1 };

/** A hand-written file: top-level and entry keys this product does not know, in an order of its own. */
function handFile(): RawModelsFile {
  return {
    comment: "mine",
    models: {
      b: { model: "b-1", custom: { nested: true }, base_url: "https://user:pw@b.example/v1", label: "B", timeouts: { idle_ms: 1000, note: "keep" }, fallback: "offline" },
      offline: { provider: "offline", model: "astrion-offline" },
      a: { model: "a-1", api_key_env: "A_KEY" },
    },
    default: "a",
    aliases: { sonnet: "b" },
    memory: "a",
  };
}

function reasonOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details;
  }
  throw new Error("expected a refusal");
}

describe("putEntry", () => {
  it("replaces an entry where it stands, keeping unknown keys of the file, the entry and its timeouts in their order", () => {
    const next = putEntry(handFile(), "b", { ...fields, label: "B2", timeouts: { first_response_ms: 9000 } }, null, false);
    expect(Object.keys(next)).toEqual(["comment", "models", "default", "aliases", "memory"]);
    expect(Object.keys(next.models)).toEqual(["b", "offline", "a"]);
    const b = next.models.b!;
    // Its own keys first in their order (fallback removed: the form sent none), new fields after.
    expect(Object.keys(b)).toEqual(["model", "custom", "base_url", "label", "timeouts", "provider", "thinking_style", "max_concurrency"]);
    expect(b).toMatchObject({ custom: { nested: true }, label: "B2", model: "qwen3:8b" });
    expect(b.timeouts).toEqual({ note: "keep", first_response_ms: 9000 });
    expect(next.models.a).toEqual(handFile().models.a);
  });

  it("keeps a URL's stored user info when the form sends the URL back as it was shown (without it)", () => {
    expect(putEntry(handFile(), "b", { ...fields, base_url: "https://b.example/v1" }, null, false).models.b!.base_url).toBe("https://user:pw@b.example/v1");
    expect(putEntry(handFile(), "b", { ...fields, base_url: "https://c.example/v1" }, null, false).models.b!.base_url).toBe("https://c.example/v1");
  });

  it("adds a new entry at the end in the form's order, and places its key", () => {
    const next = putEntry(handFile(), "local", { ...fields, prices: { input: 0.5 } }, { api_key_ref: "key_0123456789abcdef" }, true);
    expect(Object.keys(next.models)).toEqual(["b", "offline", "a", "local"]);
    expect(Object.keys(next.models.local!)).toEqual(["provider", "base_url", "api_key_ref", "model", "thinking_style", "max_concurrency", "prices"]);
    expect(next.models.local!.api_key_ref).toBe("key_0123456789abcdef");
  });

  it("moves an entry between a variable and a stored key, never keeping both", () => {
    const stored = putEntry(handFile(), "a", fields, { api_key_ref: "key_0123456789abcdef" }, false).models.a!;
    expect(stored.api_key_ref).toBe("key_0123456789abcdef");
    expect(stored.api_key_env).toBeUndefined();
    const none = putEntry(handFile(), "a", fields, { none: true }, false).models.a!;
    expect("api_key_env" in none || "api_key_ref" in none).toBe(false);
    expect(putEntry(handFile(), "a", fields, null, false).models.a!.api_key_env).toBe("A_KEY");
  });

  it("refuses a fallback that names no model or the entry itself, a taken key, the reserved env key, an unknown key", () => {
    expect(reasonOf(() => putEntry(handFile(), "a", { ...fields, fallback: "nope" }, null, false))).toEqual([expect.objectContaining({ path: "entry.fallback", reason: "unknown_fallback", name: "nope" })]);
    expect(reasonOf(() => putEntry(handFile(), "a", { ...fields, fallback: "a" }, null, false))).toEqual([expect.objectContaining({ reason: "self_fallback" })]);
    expect(reasonOf(() => putEntry(handFile(), "b", fields, null, true))).toEqual([expect.objectContaining({ path: "key", reason: "exists" })]);
    expect(reasonOf(() => putEntry(handFile(), "env", fields, null, true))).toEqual([expect.objectContaining({ reason: "reserved" })]);
    expect(reasonOf(() => putEntry(handFile(), "zz", fields, null, false))).toEqual([expect.objectContaining({ reason: "unknown_key" })]);
    expect(putEntry(handFile(), "a", { ...fields, fallback: "b" }, null, false).models.a!.fallback).toBe("b");
  });
});

describe("removeEntry and setDefault", () => {
  it("lists what names an entry: the default, a fallback, an alias, a side job", () => {
    expect(referencesTo(handFile(), "a")).toEqual([{ kind: "default", name: "default" }, { kind: "setting", name: "memory" }]);
    expect(referencesTo(handFile(), "b")).toEqual([{ kind: "alias", name: "sonnet" }]);
    expect(referencesTo(handFile(), "offline")).toEqual([{ kind: "fallback", name: "b" }]);
  });

  it("refuses to remove the default, an entry an alias or a fallback names, or the offline model", () => {
    const a = reasonOf(() => removeEntry(handFile(), "a")) as Array<{ reason: string; kind: string }>;
    expect(a.map((d) => [d.reason, d.kind])).toEqual([["referenced", "default"], ["referenced", "setting"]]);
    expect(reasonOf(() => removeEntry(handFile(), "b"))).toEqual([expect.objectContaining({ reason: "referenced", kind: "alias", name: "sonnet" })]);
    expect(reasonOf(() => removeEntry(handFile(), "offline"))).toEqual([expect.objectContaining({ reason: "builtin" })]);
  });

  it("removes an entry nothing names, keeping the rest as it was", () => {
    const file = { ...handFile(), aliases: {} };
    const next = removeEntry(file, "b");
    expect(Object.keys(next.models)).toEqual(["offline", "a"]);
    expect(next.comment).toBe("mine");
  });

  it("sets the default to a model of the file, and refuses one it does not have", () => {
    expect(setDefault(handFile(), "b").default).toBe("b");
    expect(reasonOf(() => setDefault(handFile(), "zz"))).toEqual([expect.objectContaining({ reason: "unknown_key" })]);
  });
});

describe("mergeEntry", () => {
  it("removes the form's fields it no longer sends (a cleared label, prices)", () => {
    const out = mergeEntry({ label: "x", model: "m", prices: { input: 1, output: 2 }, extra: 1 }, { ...fields, label: "" }, null);
    expect(out).not.toHaveProperty("label");
    expect(out).not.toHaveProperty("prices");
    expect(out.extra).toBe(1);
  });
});

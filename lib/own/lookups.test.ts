/**
 * Every table that outside input indexes (model keys, tool names a model chose, role ids,
 * shared-context keys, YAML keys, usage buckets) sees only its own entries: `constructor`,
 * `toString`, `hasOwnProperty`, `__proto__` are unknown names, never inherited values.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { summarizeToolCall } from "@/components/conversation/thread-items";
import { deriveWorkNotes } from "@/lib/context/promotions";
import { addUsage } from "@/lib/models/usage";
import { applyEnvironment, defaultModelsFile, lookupModel, resolveModel } from "@/lib/models/registry";
import { roleAbbreviation } from "@/lib/contracts/messages";
import { parseRoleFile } from "@/lib/roles/parse";
import { applyWrite } from "@/lib/shared-context/arbitrate";
import { emptySharedContext, SharedKeySchema } from "@/lib/shared-context/schema";
import { readJsonFile } from "@/lib/store/files";
import type { Message } from "@/lib/contracts/on-disk";

const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf", "__proto__", "isPrototypeOf", "__defineGetter__"];


describe("model registry", () => {
  const registry = applyEnvironment(defaultModelsFile(), {});

  it.each(INHERITED)("does not know the model key %s", (key) => {
    expect(lookupModel(registry, key)).toBeUndefined();
    expect(() => resolveModel(registry, key)).toThrow(/Unknown model key/);
  });

  it.each(["constructor", "toString"])("does not take %s as the default from the file or ASTRION_MODEL", (key) => {
    expect(applyEnvironment({ ...defaultModelsFile(), default: key }, {}).default).toBe("offline");
    expect(applyEnvironment(defaultModelsFile(), { ASTRION_MODEL: key }).default).toBe("offline");
    const withEnv = applyEnvironment(defaultModelsFile(), { OPENAI_BASE_URL: "http://127.0.0.1:1/v1", ASTRION_MODEL: key });
    expect(withEnv.models.env?.model).toBe(key); // not a registered key, so it is the provider's model name
  });

  it("still knows a model a person registered under such a name", () => {
    const file = defaultModelsFile();
    const custom = { ...file, models: { ...file.models, constructor: { provider: "offline" as const, model: "x", thinking_style: "none" as const, max_concurrency: 1 } } };
    expect(lookupModel(applyEnvironment(custom, {}), "constructor")?.model).toBe("x");
  });
});

describe("tool tables", () => {
  it.each(INHERITED)("a call named %s leaves no work note and is summarized by its own arguments", (name) => {
    const messages: Message[] = [{ role: "assistant", content: "", message_id: "m1", tool_calls: [{ id: "c1", type: "function", function: { name, arguments: '{"path":"a.txt","x":1}' } }] }];
    expect(deriveWorkNotes(messages)).toEqual([]);
    expect(summarizeToolCall(name, '{"path":"a.txt","x":1}').keyArgs).toEqual([
      { name: "path", value: "a.txt" },
      { name: "x", value: "1" },
    ]);
  });

  it.each(INHERITED)("the role id %s gets its own abbreviation", (roleId) => {
    expect(roleAbbreviation(roleId)).toMatch(/^[a-z0-9]+$/);
    expect(roleAbbreviation(roleId, {})).toBe(roleAbbreviation(roleId));
    expect(roleAbbreviation(roleId, { [roleId]: "zz" })).toBe("zz"); // an own override still counts
  });
});

describe("usage statistics", () => {
  it.each(["constructor", "toString", "valueOf"])("counts a model keyed %s from zero", (modelKey) => {
    const stats = addUsage({}, { agentKey: "leader", modelKey, usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    expect(Object.getOwnPropertyDescriptor(stats.by_model, modelKey)?.value).toMatchObject({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, calls: 1 });
  });
});

describe("shared context", () => {
  const ctx = { now: new Date("2026-07-11T13:00:00.000Z"), windowMs: 2000, newConflictId: () => "conflict_1" };

  it.each(["constructor", "toString", "hasOwnProperty", "valueOf"])("the key %s is a new key, not an inherited value", (key) => {
    const out = applyWrite(emptySharedContext(), { key, value: "v", mode: "overwrite", expected_version: 0, author: "Team Leader", author_role: "leader" }, ctx);
    expect(out.decision).toMatchObject({ outcome: "applied", version: 1, before: null });
    expect(Object.getOwnPropertyDescriptor(out.file.entries, key)?.value).toMatchObject({ key, value: "v", version: 1 });
  });

  it("refuses the key __proto__ (it could not be read back)", () => {
    expect(SharedKeySchema.safeParse("__proto__").success).toBe(false);
    expect(SharedKeySchema.safeParse(" __proto__ ").success).toBe(false);
    expect(SharedKeySchema.safeParse("constructor").success).toBe(true);
  });
});

describe("files and role frontmatter", () => {
  it("a __proto__ key in a JSON file does not change the loaded object's prototype", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-own-"));
    const file = path.join(dir, "x.json");
    await fs.writeFile(file, '{"__proto__": {"polluted": true}, "constructor": "c", "a": 1}');
    const value = await readJsonFile(file, z.looseObject({ a: z.number() }));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(value).toMatchObject({ a: 1, constructor: "c" });
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("unknown frontmatter keys named __proto__ or constructor are kept as data", () => {
    const detail = parseRoleFile("proto.md", "---\nname: Proto\ndescription: d\n__proto__:\n  polluted: yes\nconstructor: c\n---\nbody\n");
    expect(detail.kind).toBe("role");
    if (detail.kind !== "role") return;
    expect(Object.getPrototypeOf(detail.extra)).toBe(Object.prototype);
    expect((detail.extra as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(detail.extra, "__proto__")?.value).toEqual({ polluted: "yes" });
    expect(detail.extra.constructor).toBe("c");
  });
});

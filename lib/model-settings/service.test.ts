import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConflictError, ValidationError } from "@/lib/contracts/errors";
import { KEY_STORE_FILE, loadRegistry, ModelKeyStore } from "@/lib/models";
import * as store from "@/lib/store";
import { FileQueues } from "@/lib/store";
import { deleteModelEntry, publicModelList, putModelEntry, readModelSettings, setDefaultModel, type ModelSettingsDeps } from "./service";
import type { ModelEntryFields } from "./schema";

const SECRET = "sk-typed-in-settings-9f3e2a";
const fields: ModelEntryFields = { provider: "openai", base_url: "https://api.example.com/v1", model: "gpt-x", thinking_style: "none", max_concurrency: 2 };
/** A hand-written models.json: unknown keys, its own order, no trailing newline conventions. */
const HAND = `{"note": "by hand", "models": {"offline": {"provider": "offline", "model": "astrion-offline", "x": 1}}, "default": "offline", "redaction": {"account_patterns": []}}`;

let root: string;
let deps: ModelSettingsDeps;
const modelsText = () => fs.readFile(path.join(root, "models.json"), "utf8");

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-model-settings-"));
  await fs.writeFile(path.join(root, "models.json"), HAND);
  const queues = new FileQueues();
  deps = { root, queues, keys: new ModelKeyStore(root, queues) };
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

describe("the models.json editor", () => {
  it("adds an entry keeping the file's unknown keys and order, and the registry sees it at once", async () => {
    const before = await readModelSettings(deps);
    const after = await putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "env", env: "GPT_KEY" }, etag: before.etag, create: true });
    const written = JSON.parse(await modelsText());
    expect(Object.keys(written)).toEqual(["note", "models", "default", "redaction"]);
    expect(written.models.offline).toEqual({ provider: "offline", model: "astrion-offline", x: 1 });
    expect(written.models.gpt).toEqual({ provider: "openai", base_url: "https://api.example.com/v1", api_key_env: "GPT_KEY", model: "gpt-x", thinking_style: "none", max_concurrency: 2 });
    expect(after.etag).not.toBe(before.etag);
    expect(after.entries.map((e) => e.key)).toEqual(["offline", "gpt"]);
    expect(after.entries[1]!.api_key).toEqual({ source: "env", env: "GPT_KEY", set: false });
    expect((await loadRegistry(root)).models.gpt?.model).toBe("gpt-x");
  });

  it("writes through the atomic writer (temp file renamed over models.json)", async () => {
    const atomic = vi.spyOn(store, "writeFileAtomicUnlocked");
    await setDefaultModel(deps, "offline", (await readModelSettings(deps)).etag);
    expect(atomic.mock.calls.map(([f]) => path.basename(String(f)))).toEqual(["models.json"]);
  });

  it("refuses a change made with the etag of a file edited by hand since (409), leaving the hand edit", async () => {
    const opened = await readModelSettings(deps);
    const edited = HAND.replace('"by hand"', '"edited while the page was open"');
    await fs.writeFile(path.join(root, "models.json"), edited);
    const stale = putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "none" }, etag: opened.etag, create: true });
    await expect(stale).rejects.toBeInstanceOf(ConflictError);
    await expect(stale).rejects.toMatchObject({ details: { reason: "stale", etag: (await readModelSettings(deps)).etag } });
    expect(await modelsText()).toBe(edited);
    for (const change of [() => setDefaultModel(deps, "offline", opened.etag), () => deleteModelEntry(deps, "offline", opened.etag)]) {
      await expect(change()).rejects.toBeInstanceOf(ConflictError);
    }
    expect(await modelsText()).toBe(edited);
  });

  it("does not overwrite a models.json that does not load", async () => {
    await fs.writeFile(path.join(root, "models.json"), "{ broken");
    const view = await readModelSettings(deps);
    expect(view.error).toMatch(/not valid JSON/);
    await expect(putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "none" }, create: true })).rejects.toBeInstanceOf(ConflictError);
    expect(await modelsText()).toBe("{ broken");
  });
});

describe("a key typed in Settings", () => {
  it("is kept in the key store (0600), named by its id in models.json, and shown only as set", async () => {
    const view = await putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "stored", value: SECRET }, create: true });
    const text = await modelsText();
    expect(text).not.toContain(SECRET);
    const ref = JSON.parse(text).models.gpt.api_key_ref as string;
    expect(ref).toMatch(/^key_/);
    const keyFile = path.join(root, KEY_STORE_FILE);
    expect(JSON.parse(await fs.readFile(keyFile, "utf8")).keys[ref]).toBe(SECRET);
    expect((await fs.stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(view)).not.toContain(SECRET);
    expect(view.entries.find((e) => e.key === "gpt")!.api_key).toEqual({ source: "stored", set: true });
    const list = await publicModelList(deps);
    expect(JSON.stringify(list)).not.toContain(SECRET);
    expect(list.models.find((m) => m.key === "gpt")).toMatchObject({ configured: true, api_key: { source: "stored", set: true } });
  });

  it("is replaced under the same id, kept through an edit that keeps it, and forgotten when the entry moves to a variable or goes", async () => {
    await putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "stored", value: SECRET }, create: true });
    const ref = JSON.parse(await modelsText()).models.gpt.api_key_ref as string;
    await putModelEntry(deps, { key: "gpt", entry: { ...fields, label: "GPT" }, api_key: { mode: "keep" }, create: false });
    expect(await deps.keys.has(ref)).toBe(true);
    await putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "stored", value: "sk-second-key-123" }, create: false });
    expect(JSON.parse(await modelsText()).models.gpt.api_key_ref).toBe(ref);
    expect(deps.keys.peek(ref)).toBe("sk-second-key-123");
    await putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "env", env: "GPT_KEY" }, create: false });
    expect(await deps.keys.has(ref)).toBe(false);
    await putModelEntry(deps, { key: "gpt", entry: fields, api_key: { mode: "stored", value: SECRET }, create: false });
    const again = JSON.parse(await modelsText()).models.gpt.api_key_ref as string;
    await deleteModelEntry(deps, "gpt");
    expect(await deps.keys.has(again)).toBe(false);
  });

  it("is not stored when the change is refused", async () => {
    await expect(putModelEntry(deps, { key: "gpt", entry: { ...fields, fallback: "nope" }, api_key: { mode: "stored", value: SECRET }, create: true })).rejects.toBeInstanceOf(ValidationError);
    await expect(fs.readFile(path.join(root, KEY_STORE_FILE), "utf8")).rejects.toThrow();
  });
});

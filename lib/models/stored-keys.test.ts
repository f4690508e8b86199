/**
 * A model whose key was typed in Settings: the model registry reads it from the key store at call
 * time and sends it as the bearer token; the environment's endpoint asks for no key when only
 * OPENAI_BASE_URL is set (a local server such as Ollama needs none).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfflineModel } from "@/lib/offline-model";
import { FileQueues } from "@/lib/store";
import { fakeText, startFakeOpenAI, type FakeOpenAI } from "@/test/helpers/fake-openai";
import { DUMMY_API_KEY } from "./client";
import { ModelKeyStore } from "./key-store";
import { ModelRegistry } from "./model-registry";
import { applyEnvironment, defaultModelsFile } from "./registry";

let fake: FakeOpenAI;
let root: string;
beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: fakeText("hello") });
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-stored-keys-"));
});
afterAll(async () => {
  await fake.close();
  await fs.rm(root, { recursive: true, force: true });
});

const ask = { messages: [{ role: "user" as const, content: "hi" }], thinking: "off" as const };

describe("a stored key", () => {
  it("is sent as the bearer token, and a key replaced in the store is used at the next call", async () => {
    const keys = new ModelKeyStore(root, new FileQueues());
    const ref = await keys.put("sk-stored-first-111");
    await fs.writeFile(path.join(root, "models.json"), JSON.stringify({ default: "typed", models: { typed: { base_url: fake.url, api_key_ref: ref, model: "m" } } }));
    const registry = new ModelRegistry({ offline: createOfflineModel, keys });
    await (await registry.modelFor(root, "typed")).stream(ask);
    expect(fake.requests.at(-1)?.authorization).toBe("Bearer sk-stored-first-111");
    await new ModelKeyStore(root, new FileQueues()).put("sk-stored-second-222", ref);
    await (await registry.modelFor(root, "typed")).stream(ask);
    expect(fake.requests.at(-1)?.authorization).toBe("Bearer sk-stored-second-222");
  });

  it("that is gone fails the call with a message saying to type it again, naming no key", async () => {
    await fs.writeFile(path.join(root, "models.json"), JSON.stringify({ default: "typed", models: { typed: { base_url: fake.url, api_key_ref: "key_000000000000", model: "m" } } }));
    const registry = new ModelRegistry({ offline: createOfflineModel, keys: new ModelKeyStore(root, new FileQueues()) });
    await expect((await registry.modelFor(root, "typed")).stream(ask)).rejects.toThrow(/type it again in Settings → Models/);
  });
});

describe("the environment's endpoint", () => {
  it("needs no key with only OPENAI_BASE_URL set (Ollama), and uses OPENAI_API_KEY when it is set", async () => {
    const local = applyEnvironment(defaultModelsFile(), { OPENAI_BASE_URL: fake.url }).models.env!;
    expect(local.api_key_env).toBeUndefined();
    await fs.writeFile(path.join(root, "models.json"), JSON.stringify({ default: "env", models: { env: local } }));
    await (await new ModelRegistry({ offline: createOfflineModel }).modelFor(root, "env")).stream(ask);
    expect(fake.requests.at(-1)?.authorization).toBe(`Bearer ${DUMMY_API_KEY}`);
    expect(applyEnvironment(defaultModelsFile(), { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: "sk-x" }).models.env!.api_key_env).toBe("OPENAI_API_KEY");
  });
});

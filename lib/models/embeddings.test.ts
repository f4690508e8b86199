import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeError, startFakeOpenAI, type FakeOpenAI } from "@/test/helpers/fake-openai";
import { fakeEmbedding } from "@/test/helpers/fake-embeddings";
import { ModelRegistry } from "./model-registry";
import { createOfflineModel } from "@/lib/offline-model";

const embedderFor = (root: string) => new ModelRegistry({ offline: createOfflineModel }).embedderFor(root);
import { createEmbedder, embeddingInput, MAX_EMBED_CHARS, vectorsOf } from "./embeddings";
import { auxModelKey } from "./schema";
import { ModelCallError } from "./types";

let fake: FakeOpenAI;
let failing: FakeOpenAI;
const env = { EMB_KEY: "sk-embed-secret" };

beforeAll(async () => {
  fake = await startFakeOpenAI();
  failing = await startFakeOpenAI({ embed: (text) => (text.includes("boom") ? fakeError(500, { message: "exploded with sk-embed-secret" }) : text.includes("deny") ? fakeError(401) : fakeEmbedding(text)) });
});
afterAll(async () => {
  await fake.close();
  await failing.close();
});

const entry = (url: string) => ({ provider: "openai-compatible" as const, base_url: url, api_key_env: "EMB_KEY", model: "emb-model", thinking_style: "none" as const, max_concurrency: 4 });
const embeddingCalls = (f: FakeOpenAI) => f.requests.filter((r) => r.path === "/v1/embeddings");

describe("createEmbedder", () => {
  it("embeds in batches through the openai client, in order, with the key from the environment", async () => {
    fake.reset();
    const texts = ["alpha beta", "gamma", "支付 回调", "", "alpha beta gamma"];
    const vectors = await createEmbedder("emb", entry(fake.url), { env, batchSize: 2 }).embed(texts);
    expect(vectors).toEqual(texts.map((t) => fakeEmbedding(embeddingInput(t))));
    const calls = embeddingCalls(fake);
    expect(calls.map((c) => (c.body?.input as string[]).length)).toEqual([2, 2, 1]);
    expect(calls[0]!.body).toMatchObject({ model: "emb-model", encoding_format: "float" });
    expect(calls[0]!.authorization).toBe("Bearer sk-embed-secret");
    // An empty text is sent as one space (endpoints refuse ""), a huge one is cut.
    expect((calls[1]!.body?.input as string[])[1]).toBe(" ");
    await createEmbedder("emb", entry(fake.url), { env }).embed(["x".repeat(MAX_EMBED_CHARS * 3)]);
    expect((embeddingCalls(fake).at(-1)!.body?.input as string[])[0]).toHaveLength(MAX_EMBED_CHARS);
  });

  it("answers nothing for no texts without calling the endpoint", async () => {
    fake.reset();
    expect(await createEmbedder("emb", entry(fake.url), { env }).embed([])).toEqual([]);
    expect(embeddingCalls(fake)).toHaveLength(0);
  });

  it("turns failures into ModelCallErrors that never carry the key", async () => {
    const emb = createEmbedder("emb", entry(failing.url), { env });
    const server = await emb.embed(["boom"]).catch((e: unknown) => e);
    expect(server).toBeInstanceOf(ModelCallError);
    expect((server as ModelCallError).reason).toBe("server");
    expect((server as Error).message).not.toContain("sk-embed-secret");
    expect(((await emb.embed(["deny"]).catch((e: unknown) => e)) as ModelCallError).reason).toBe("client");
    const noKey = await createEmbedder("emb", entry(fake.url), { env: {} }).embed(["a"]).catch((e: unknown) => e);
    expect((noKey as ModelCallError).message).toMatch(/EMB_KEY/);
    const closed = await createEmbedder("emb", entry("http://127.0.0.1:9/v1"), { env }).embed(["a"]).catch((e: unknown) => e);
    expect((closed as ModelCallError).reason).toBe("network");
  });
});

describe("vectorsOf", () => {
  const v = (index: number, embedding: number[]) => ({ index, embedding });
  it("orders by index and checks every vector", () => {
    expect(vectorsOf({ data: [v(1, [3, 4]), v(0, [1, 2])] }, 2)).toEqual([[1, 2], [3, 4]]);
    expect(() => vectorsOf({ data: [v(0, [1, 2])] }, 2)).toThrow(/no vector for input 1/);
    expect(() => vectorsOf({ data: [v(0, [1, 2]), v(0, [1, 2])] }, 2)).toThrow(/repeated index/);
    expect(() => vectorsOf({ data: [v(0, [1, 2]), v(1, [1])] }, 2)).toThrow(/dimension/);
    expect(() => vectorsOf({ data: [v(0, [1, 2])] }, 1, 3)).toThrow(/dimension/);
    expect(() => vectorsOf({ data: [v(0, [])] }, 1)).toThrow(/dimension/);
    expect(() => vectorsOf({ nope: true }, 1)).toThrow(/not an embeddings list/);
  });
});

describe("ModelRegistry.embedderFor", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), "astrion-emb-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: unknown) => writeFileSync(path.join(root, "models.json"), JSON.stringify(file));

  it("is the models.json `embedding` key's model, or null when none or the offline model is named", async () => {
    write({ default: "offline", models: { offline: { provider: "offline", model: "offline" } } });
    expect(await embedderFor(root)).toBeNull();
    write({ default: "offline", embedding: "offline", models: { offline: { provider: "offline", model: "offline" } } });
    expect(await embedderFor(root)).toBeNull();
    write({ default: "offline", embedding: "emb", models: { offline: { provider: "offline", model: "offline" }, emb: { base_url: fake.url, model: "emb-model" } } });
    const emb = await embedderFor(root);
    expect(emb?.key).toBe("emb");
    expect(await emb!.embed(["hello world"])).toEqual([fakeEmbedding("hello world")]);
  });

  it("auxModelKey names only registered models", () => {
    const models = { a: {}, b: {} };
    expect(auxModelKey({ embedding: "a", reranker: "b", models }, "embedding")).toBe("a");
    expect(auxModelKey({ embedding: "a", reranker: "b", models }, "reranker")).toBe("b");
    expect(auxModelKey({ memory: "gone", models }, "memory")).toBeNull();
    expect(auxModelKey({ memory: "  ", models }, "memory")).toBeNull();
    expect(auxModelKey({ models }, "classifier")).toBeNull();
    expect(auxModelKey({ embedding: "toString", models }, "embedding")).toBeNull();
  });
});

/** The guesser asks an unknown server's /v1/models with the key the model client would send, a typed one included. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { ProviderGuesser } from "./guesser";

const server = http.createServer((req, res) => {
  if (req.headers.authorization !== "Bearer sk-typed-in-settings") {
    res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"bad key"}}');
    return;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "Qwen/Qwen3-8B", object: "model", owned_by: "vllm" }] }));
});
const listening = new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("ProviderGuesser", () => {
  it("sends a key typed in Settings (api_key_ref) when it asks the server", async () => {
    const base_url = await listening;
    const entry = { base_url, model: "Qwen/Qwen3-8B", api_key_ref: "key_aaaaaaaaaaaa", provider: "openai-compatible" as const, thinking_style: "none" as const, max_concurrency: 1 };
    const withKey = new ProviderGuesser({ env: {}, storedKey: (ref) => (ref === "key_aaaaaaaaaaaa" ? "sk-typed-in-settings" : undefined) });
    expect(await withKey.resolve(entry)).toEqual({ profile: "vllm", source: "server", detail: 'owned_by "vllm"' });
    const without = new ProviderGuesser({ env: {} });
    expect((await without.resolve(entry)).source).not.toBe("server");
  });
});

/** The one resolution of an entry's API key: a stored key wins over a variable; none needed without either. */
import { describe, expect, it } from "vitest";
import { resolveApiKey } from "./api-key";

describe("resolveApiKey", () => {
  const stored = (ref: string) => (ref === "key_aaaaaaaaaaaa" ? "sk-stored" : undefined);
  it("reads a key typed in Settings by its ref, before any variable", () => {
    expect(resolveApiKey({ api_key_ref: "key_aaaaaaaaaaaa", api_key_env: "K" }, { K: "sk-env" }, stored)).toEqual({ state: "stored", value: "sk-stored" });
    expect(resolveApiKey({ api_key_ref: "key_bbbbbbbbbbbb" }, {}, stored)).toEqual({ state: "stored_missing" });
    expect(resolveApiKey({ api_key_ref: "key_aaaaaaaaaaaa" }, {})).toEqual({ state: "stored_missing" });
  });
  it("reads a variable, and needs none for a local server", () => {
    expect(resolveApiKey({ api_key_env: "K" }, { K: "sk-env" })).toEqual({ state: "set", env: "K", value: "sk-env" });
    expect(resolveApiKey({ api_key_env: "K" }, {})).toEqual({ state: "missing", env: "K" });
    expect(resolveApiKey({}, { K: "sk-env" })).toEqual({ state: "none_needed" });
  });
});

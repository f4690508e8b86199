/**
 * The catalog suite (./conversation-catalog.ts) catches what a backend could get wrong: each
 * flawed catalog below is the file store with one guarantee broken, and some case of the suite
 * must fail against it (and name the guarantee), while the sound store passes every case.
 */
import { describe, expect, it } from "vitest";
import type { ConversationCatalog } from "@/lib/store";
import { fileCatalogFactory } from "@/test/support/file-catalog";
import { CATALOG_CASES, runCatalogCase, type CatalogFactory } from "./conversation-catalog";

/** The file store's catalog with some members replaced. */
function flawed(change: (c: ConversationCatalog) => Partial<ConversationCatalog>): CatalogFactory {
  return {
    async create() {
      const h = await fileCatalogFactory.create();
      const c = h.catalog;
      const overrides = change(c);
      const catalog = new Proxy(c, {
        get(target, key, receiver) {
          if (Object.prototype.hasOwnProperty.call(overrides, key)) return overrides[key as keyof ConversationCatalog];
          const value = Reflect.get(target, key, receiver) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      return { catalog, close: h.close };
    },
  };
}

/** The names of the cases that fail against `factory`. */
async function failing(factory: CatalogFactory): Promise<string[]> {
  const out: string[] = [];
  for (const c of CATALOG_CASES) {
    try {
      await runCatalogCase(factory, c);
    } catch {
      out.push(c.name);
    }
  }
  return out;
}

describe("the catalog conformance suite against flawed catalogs", () => {
  it("a list that ignores the status filter fails the list case", async () => {
    const f = flawed((c) => ({ list: (q) => c.list({ ...q, status: "all" }) }));
    expect(await failing(f)).toEqual(expect.arrayContaining([expect.stringMatching(/^list:/)]));
  });

  it("an update that reads, waits and writes (losing changes asked at once) fails the ordering case", async () => {
    const f = flawed((c) => ({
      update: async (id, patch) => {
        if (typeof patch !== "function") return c.update(id, patch);
        const current = await c.get(id);
        await new Promise((resolve) => setImmediate(resolve));
        const next = await patch(current);
        return c.update(id, () => next);
      },
    }));
    expect(await failing(f)).toEqual(expect.arrayContaining([expect.stringMatching(/^update: changes of one conversation asked at once/)]));
  });

  it("a remove that leaves the conversation listed fails the remove case", async () => {
    const f = flawed(() => ({ remove: async () => undefined }));
    expect(await failing(f)).toEqual(expect.arrayContaining([expect.stringMatching(/^remove:/)]));
  });

  it("an observer that is never told fails the observe case", async () => {
    const f = flawed(() => ({ observe: () => () => undefined }));
    expect(await failing(f)).toEqual(expect.arrayContaining([expect.stringMatching(/^observe and version:/)]));
  });

  it("the sound file store fails no case", async () => {
    expect(await failing(fileCatalogFactory)).toEqual([]);
  });
});

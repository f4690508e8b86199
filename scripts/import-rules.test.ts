/**
 * The import rules of `npm run lint` (.dependency-cruiser.cjs) attacked: a small tree laid out like
 * the app's, with one forbidden import at a time, is cruised with the repository's own rules; each
 * must be reported, and the clean tree must pass. Without the rules (or with one loosened) a case
 * here fails.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = path.resolve(__dirname, "..");
const cruiser = path.join(repo, "node_modules", ".bin", "depcruise");
const made: string[] = [];

/** A tree of `files` (path → source) with the repository's rules; returns the rules it breaks in `roots`. */
function violations(files: Record<string, string>, roots: string[] = ["lib"]): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-import-rules-"));
  made.push(dir);
  copyFileSync(path.join(repo, ".dependency-cruiser.cjs"), path.join(dir, ".dependency-cruiser.cjs"));
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "esnext", moduleResolution: "bundler", paths: { "@/*": ["./*"] } } }));
  mkdirSync(path.join(dir, "node_modules", "zod"), { recursive: true });
  writeFileSync(path.join(dir, "node_modules", "zod", "package.json"), JSON.stringify({ name: "zod", main: "index.js" }));
  writeFileSync(path.join(dir, "node_modules", "zod", "index.js"), "export const z = {};\n");
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  let out: string;
  try {
    out = execFileSync(cruiser, [...roots, "-c", ".dependency-cruiser.cjs", "--output-type", "json"], { cwd: dir, encoding: "utf8" });
  } catch (error) {
    out = String((error as { stdout?: string }).stdout ?? "");
  }
  const result = JSON.parse(out) as { summary: { violations: Array<{ rule: { name: string } }> } };
  return [...new Set(result.summary.violations.map((v) => v.rule.name))].sort();
}

/** A clean tree: contracts at the bottom, storage over them, the engine over storage, the root on top. */
const clean: Record<string, string> = {
  "lib/contracts/on-disk.ts": 'import { z } from "zod";\nexport const A = z;\n',
  "lib/store/index.ts": 'import { A } from "@/lib/contracts/on-disk";\nexport const store = A;\n',
  "lib/models/client.ts": 'import { A } from "@/lib/contracts/on-disk";\nexport const client = A;\n',
  "lib/runtime/engine.ts": 'import { store } from "@/lib/store";\nimport { client } from "@/lib/models/client";\nexport const engine = [store, client];\n',
  "lib/offline-model/index.ts": 'import { client } from "@/lib/models/client";\nexport const offline = client;\n',
  "lib/server/app.ts": 'import { engine } from "@/lib/runtime/engine";\nimport { offline } from "@/lib/offline-model";\nexport const app = [engine, offline];\n',
};

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("the import rules", () => {
  it("pass a tree that keeps them", () => {
    expect(violations(clean)).toEqual([]);
  });

  it("refuse a circle between files, and between folders", () => {
    expect(violations({ ...clean, "lib/store/index.ts": 'import { engine } from "@/lib/runtime/engine";\nexport const store = engine;\n' })).toEqual(
      expect.arrayContaining(["no-circular", "no-circular-folders", "storage-bus-http-not-engine"]),
    );
    // a folder circle of files that form no file circle
    const folders = { ...clean, "lib/store/a.ts": 'import { x } from "@/lib/models/b";\nexport const a = x;\n', "lib/models/b.ts": "export const x = 1;\n", "lib/models/c.ts": 'import { store } from "@/lib/store";\nexport const c = store;\n' };
    expect(violations(folders)).toContain("no-circular-folders");
    expect(violations(folders)).not.toContain("no-circular");
  });

  it("refuse the contracts importing anything of lib/ or a package but zod", () => {
    expect(violations({ ...clean, "lib/contracts/http.ts": 'import { store } from "@/lib/store";\nexport const h = store;\n' })).toContain("contracts-import-only-zod");
  });

  it("refuse the model client importing the engine, governance or context", () => {
    for (const target of ["runtime/engine", "governance/x", "context/x"]) {
      const files = { ...clean, "lib/governance/x.ts": "export const g = 1;\n", "lib/context/x.ts": "export const c = 1;\n", "lib/models/bad.ts": `import * as m from "@/lib/${target}";\nexport const bad = m;\n` };
      expect(violations(files), target).toContain("model-client-alone");
    }
  });

  it("refuse reaching the offline model other than through the composition root, and reaching up for the root", () => {
    expect(violations({ ...clean, "lib/runtime/engine.ts": 'import { offline } from "@/lib/offline-model";\nexport const engine = offline;\n' })).toContain("offline-model-through-registry");
    expect(violations({ ...clean, "lib/runtime/x.ts": 'import { app } from "@/lib/server/app";\nexport const x = app;\n' })).toContain("nothing-reaches-up-for-the-app");
  });

  it("refuse the engine importing a tool provider (only the composition root names them)", () => {
    const providers = { ...clean, "lib/runtime/tool-providers/index.ts": 'import { engine } from "@/lib/runtime/engine";\nexport const providers = engine;\n' };
    expect(violations({ ...providers, "lib/server/app.ts": 'import { engine } from "@/lib/runtime/engine";\nimport { providers } from "@/lib/runtime/tool-providers";\nimport { offline } from "@/lib/offline-model";\nexport const app = [engine, providers, offline];\n' })).toEqual([]);
    expect(violations({ ...providers, "lib/runtime/team/loop.ts": 'import { providers } from "@/lib/runtime/tool-providers";\nexport const loop = providers;\n' })).toContain("engine-knows-no-tool-provider");
  });

  it("refuse a route importing the store, the engine or the composition root itself, not through lib/server/get-app.ts", () => {
    const core = {
      ...clean,
      "lib/server/core.ts": 'import { app } from "./app";\nexport const core = { app };\nexport type ServerCore = typeof core;\n',
      "lib/server/get-app.ts": 'import type { ServerCore } from "./core";\nexport const serverCore = async (): Promise<ServerCore> => ({}) as ServerCore;\n',
      "app/api/x/route.ts": 'import { serverCore } from "@/lib/server/get-app";\nimport type { ServerCore } from "@/lib/server/core";\nexport const GET = (c: ServerCore) => [serverCore, c];\n',
    };
    expect(violations(core, ["lib", "app"])).toEqual([]);
    for (const target of ["@/lib/store", "@/lib/runtime/engine", "@/lib/server/app", "@/lib/server/core"]) {
      expect(violations({ ...core, "app/api/y/route.ts": `import * as m from "${target}";\nexport const GET = m;\n` }, ["lib", "app"]), target).toContain("routes-reach-the-core-through-get-app");
    }
  });

  it("refuse production code importing test support", () => {
    expect(violations({ ...clean, "test/helpers/h.ts": "export const h = 1;\n", "lib/store/x.ts": 'import { h } from "@/test/helpers/h";\nexport const x = h;\n' })).toContain("no-test-support-in-production");
  });
});

/**
 * Loads the tests' fake OpenAI-compatible server (`test/helpers/fake-openai.ts`) into this plain
 * Node process: TypeScript's `transpileModule` turns it into a temporary .mjs file, so the bench
 * runs exactly the code the integration tests run, without a copy to keep in step. The helper
 * must import only Node built-ins (checked here), since the temporary file sits outside the repo.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { ROOT } from "./lib.mjs";

/**
 * Imports the transpiled helper and returns its module (`startFakeOpenAI`, `fakeText`,
 * `fakeToolCalls`, …) and a `cleanup()` that removes the temporary file.
 */
export async function loadFakeOpenAI() {
  const source = readFileSync(path.join(ROOT, "test", "helpers", "fake-openai.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    fileName: "fake-openai.ts",
  });
  const specifiers = [...outputText.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gm)].map((m) => m[1]);
  const foreign = specifiers.filter((s) => !s.startsWith("node:"));
  if (foreign.length) throw new Error(`fake-openai.ts imports more than Node built-ins: ${foreign.join(", ")}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-fake-"));
  const file = path.join(dir, "fake-openai.mjs");
  writeFileSync(file, outputText);
  const mod = await import(pathToFileURL(file).href);
  return { mod, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Adds timing to a started fake: every recorded request gets `arrivedAt` (when its body had been
 * read, right before the script handler runs) and `completedAt` (when the response's last byte
 * was handed to the socket, i.e. when the helper flips `completed` on the response's `finish`).
 * Both are wall-clock milliseconds with sub-millisecond precision. With `dropBodies`, a record
 * forgets its parsed body once answered (the script handler has used it by then).
 *
 * It works through the helper's public `requests` array: each record is pushed there before the
 * helper listens for `finish`, so wrapping `push` lets us put a setter on `completed`.
 */
export function instrument(fake, { dropBodies = false } = {}) {
  const original = fake.requests.push;
  fake.requests.push = function push(...records) {
    for (const record of records) {
      record.arrivedAt = performance.timeOrigin + performance.now();
      let completed = record.completed;
      Object.defineProperty(record, "completed", {
        enumerable: true,
        get: () => completed,
        set: (value) => {
          completed = value;
          if (value && record.completedAt === undefined) record.completedAt = performance.timeOrigin + performance.now();
          if (value && dropBodies) record.body = undefined;
        },
      });
    }
    return original.apply(this, records);
  };
}

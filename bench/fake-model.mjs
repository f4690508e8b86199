/**
 * Loads the tests' fake OpenAI-compatible server (`test/helpers/fake-openai.ts`) into this plain
 * Node process (see ts-module.mjs), so the bench runs exactly the code the integration tests run.
 */
import { importTsGraph } from "./ts-module.mjs";

/**
 * Imports the transpiled helper and returns its module (`startFakeOpenAI`, `fakeText`,
 * `fakeToolCalls`, …) and a `cleanup()` that removes the temporary file.
 */
export async function loadFakeOpenAI() {
  const { mods, cleanup } = await importTsGraph(["test/helpers/fake-openai.ts"]);
  return { mod: mods[0], cleanup };
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

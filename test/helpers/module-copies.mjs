/**
 * Preloaded into the built server by test/loaded-once.test.ts (`NODE_OPTIONS=--import …`): it
 * records every module source Node loads, CommonJS or ESM (Next's route chunks, the server's core
 * bundle, packages), that holds one of the texts in MODULE_COPIES_MARKERS (a JSON object, name →
 * text), and every module of the packages named in MODULE_COPIES_PACKAGES (a JSON array), and on
 * SIGUSR2 writes them to MODULE_COPIES_OUT as JSON, with the heap after a full garbage collection. Only in scripts/serve.mjs's process; start.mjs, which spawns it, is left be.
 */
import fs from "node:fs";
import { registerHooks } from "node:module";
import v8 from "node:v8";
import vm from "node:vm";

const script = process.argv[1] ?? "";
if (script.endsWith("serve.mjs")) {
  const markers = JSON.parse(process.env.MODULE_COPIES_MARKERS ?? "{}");
  /** @type {Record<string, string[]>} marker name → the files that held it, in load order */
  const loaded = Object.fromEntries(Object.keys(markers).map((name) => [name, []]));
  /** @type {Record<string, string[]>} package name → the files of it that were loaded */
  const packages = Object.fromEntries(JSON.parse(process.env.MODULE_COPIES_PACKAGES ?? "[]").map((name) => [name, []]));

  registerHooks({
    load(url, context, nextLoad) {
      const result = nextLoad(url, context);
      const source = result.source == null ? "" : String(result.source);
      for (const [name, text] of Object.entries(markers)) if (source.includes(text)) loaded[name].push(url);
      for (const name of Object.keys(packages)) if (url.includes(`/node_modules/${name}/`)) packages[name].push(url);
      return result;
    },
  });

  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");
  process.on("SIGUSR2", () => {
    gc();
    gc();
    const { heapUsed, rss } = process.memoryUsage();
    const report = { loaded, packages, heap_used_mb: +(heapUsed / 2 ** 20).toFixed(1), rss_mb: +(rss / 2 ** 20).toFixed(1) };
    fs.writeFileSync(`${process.env.MODULE_COPIES_OUT}.tmp`, JSON.stringify(report));
    fs.renameSync(`${process.env.MODULE_COPIES_OUT}.tmp`, process.env.MODULE_COPIES_OUT);
  });
}

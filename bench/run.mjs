#!/usr/bin/env node
/**
 * `npm run bench`: drives the real built server over HTTP on loopback, each part with its own
 * temporary data folder and server, and prints one JSON object (figures in milliseconds):
 * - store and roles (bench/store.mjs): creating conversations, listing the index as it grows,
 *   listing 202 corpus roles, saving one role field;
 * - team runtime (bench/runtime.mjs), with the tests' fake OpenAI-compatible model at zero
 *   latency: orchestration overhead per model call, the cost of a save as a conversation grows
 *   to 1,000 messages, and SSE delivery latency with 10 conversations x 5 sub-agents x 3 viewers.
 * Request loops are bounded; nothing leaves this machine.
 */
import os from "node:os";
import { closeAgent } from "./lib.mjs";
import { benchRuntime } from "./runtime.mjs";
import { benchStore } from "./store.mjs";

const only = process.argv[2]; // "store" or "runtime" runs one part (for quick checks)
const started = Date.now();
try {
  const store = only === "runtime" ? undefined : await benchStore();
  const runtime = only === "store" ? undefined : await benchRuntime();
  console.log(
    JSON.stringify(
      {
        machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
        ...store,
        ...runtime,
        bench_seconds: Math.round((Date.now() - started) / 1000),
      },
      null,
      2,
    ),
  );
} finally {
  closeAgent();
}

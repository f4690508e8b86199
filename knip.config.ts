/**
 * Unused files, exports, types and dependencies, checked by `npm run lint` (knip). Knip's own
 * plugins find most entries: Next.js (app/'s pages, layouts and route handlers with their
 * `GET`/`POST`/`dynamic`/`runtime` exports, proxy.ts, instrumentation.ts), Vitest (the test files
 * of both projects in vitest.config.mts), Playwright (e2e/**\/*.spec.ts) and package.json's
 * scripts (scripts/start.mjs, scripts/openapi.mjs, bench/run.mjs). Test files are entries, so an
 * export only a test uses counts as used. Listed here: what runs by path, which no import names.
 *
 * bench/ also loads a few TypeScript modules by path (`importTsGraph([...])` in
 * bench/ts-module.mjs), which knip cannot follow; every export it takes from them is used by the
 * app or its tests as well, so none is kept for the bench alone.
 */
import type { KnipConfig } from "knip";

const config: KnipConfig = {
  entry: [
    // Spawned by path: scripts/start.mjs runs serve.mjs; screenshot.mjs is run as `node scripts/screenshot.mjs`.
    "scripts/serve.mjs",
    "scripts/screenshot.mjs",
    // Micro-benchmarks of the store, run by path (`node bench/store-steps.mjs`, `node bench/messages-text.mjs`); docs/benchmarks.md has their figures.
    "bench/store-steps.mjs",
    "bench/messages-text.mjs",
    // Bundled on its own by scripts/build-core.mjs; serve.mjs loads the bundle and calls its installCore().
    "lib/server/core.ts",
    // Bundled and run by scripts/doctor.mjs (`npm run doctor`), which calls its main().
    "lib/models/doctor/cli.ts",
    // Bundled and run by scripts/migrate-data.mjs (`npm run migrate-data`), which calls its main().
    "lib/pg/migrate-data/cli.ts",
    // Processes the tests start by path (fork / an MCP server's command).
    "test/helpers/loop-probe-process.mjs",
    "test/helpers/mcp-argv-server.ts",
    "test/helpers/mcp-flood-server.mjs",
    // Preloaded into the server by test/loaded-once.test.ts (NODE_OPTIONS=--import).
    "test/helpers/module-copies.mjs",
    // What `server-only` resolves to under vitest (an alias in vitest.config.mts).
    "test/server-only-shim.ts",
  ],
  // The types TypeScript reads for the .mjs beside them (imported by the scripts' tests as `./x.mjs`).
  ignoreFiles: ["scripts/*.d.mts"],
  // Real MCP servers the MCP tests and e2e run by path (node_modules/.bin/mcp-server-*), never imported,
  // and the engine bench's peers, which it installs into a cache folder of its own and loads from
  // there (bench/peer-install.mjs): on purpose not this project's dependencies.
  ignoreDependencies: [
    "@modelcontextprotocol/server-everything",
    "@modelcontextprotocol/server-filesystem",
    "@openai/agents",
    "@langchain/core",
    "@langchain/langgraph",
    "@langchain/langgraph-checkpoint-postgres",
    "@langchain/langgraph-checkpoint-sqlite",
    "@langchain/openai",
  ],
  // A system tool lib/workspace/tools.test.ts uses to make a FIFO, not a package.
  ignoreBinaries: ["mkfifo"],
};

export default config;

/**
 * Import rules of the production code, checked by `npm run lint` (dependency-cruiser). Tests,
 * benches and the build output are not cruised. The layers, bottom up: lib/contracts (zod only) →
 * storage, bus, model client and the other services → the engine (lib/runtime) → the composition
 * root (lib/server) → routes and UI (app/, components/, lib/client).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycle between files.",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-folders",
      severity: "error",
      comment: "No import cycle between folders either.",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "contracts-import-only-zod",
      severity: "error",
      comment: "lib/contracts is the bottom: the on-disk schemas, the HTTP contract, the events, the envelope and timeline records, the errors. It imports zod and nothing of lib/.",
      from: { path: "^lib/contracts/" },
      to: { pathNot: ["^lib/contracts/", "(^|/)node_modules/zod/"] },
    },
    {
      name: "redaction-is-pure",
      severity: "error",
      comment: "lib/redaction (the secret and personal-data detectors, the redaction pass) sits just above the contracts: memory and the command environment import it, it imports neither.",
      from: { path: "^lib/redaction/" },
      to: { pathNot: ["^lib/(redaction|contracts)/", "(^|/)node_modules/zod/"] },
    },
    {
      name: "storage-bus-http-not-engine",
      severity: "error",
      comment: "Storage, the bus and HTTP never import the engine.",
      from: { path: "^lib/(store|bus|http|sse)/" },
      to: { path: "^lib/(runtime|server)/" },
    },
    {
      name: "model-client-alone",
      severity: "error",
      comment: "The model client imports neither the engine, governance nor context.",
      from: { path: "^lib/models/" },
      to: { path: "^lib/(runtime|server|governance|context)/" },
    },
    {
      name: "offline-model-through-registry",
      severity: "error",
      comment: "The offline model is reached only through the model registry: the composition root hands its factory to lib/models/model-registry.ts.",
      from: { path: "^(lib|app|components)/", pathNot: ["^lib/offline-model/", "^lib/server/app\\.ts$"] },
      to: { path: "^lib/offline-model/" },
    },
    {
      name: "nothing-reaches-up-for-the-app",
      severity: "error",
      comment: "Only routes, instrumentation and the composition root itself may import the composition root.",
      from: { path: "^lib/", pathNot: "^lib/server/" },
      to: { path: "^lib/server/" },
    },
    {
      name: "routes-reach-the-core-through-get-app",
      severity: "error",
      comment: "The store, the engine and the composition root are the server's core (lib/server/core.ts), bundled on its own and loaded once per process by scripts/serve.mjs: routes and instrumentation.ts reach it through lib/server/get-app.ts and import only its types, so Next's route bundles carry none of its code (test/loaded-once.test.ts checks the build).",
      from: { path: "^(app/|instrumentation\\.ts$)" },
      to: { path: "^lib/(store|runtime)/|^lib/server/(?!get-app\\.ts$)", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "openapi-only-for-routes",
      severity: "error",
      comment: "lib/openapi (the route table and the OpenAPI document built from it) sits above every schema it describes: only routes (app/) and scripts import it, nothing below them.",
      from: { path: "^(lib|components)/", pathNot: "^lib/openapi/" },
      to: { path: "^lib/openapi/" },
    },
    {
      name: "engine-knows-no-tool-provider",
      severity: "error",
      comment: "Tools reach the engine only as objects from the providers the composition root hands it: adding a tool touches a provider (lib/runtime/tool-providers), nothing in the engine.",
      from: { path: "^lib/runtime/", pathNot: "^lib/runtime/tool-providers/" },
      to: { path: "^lib/runtime/tool-providers/" },
    },
    {
      name: "pg-only-in-lib-pg",
      severity: "error",
      comment: "Only lib/pg (the PostgreSQL store) imports the PostgreSQL client, so an instance on the data folder never loads it.",
      from: { pathNot: "^lib/pg/" },
      to: { path: "(^|/)node_modules/pg/" },
    },
    {
      name: "lib-pg-loaded-on-demand",
      severity: "error",
      comment: "lib/pg is loaded with `await import()` when ASTRION_DATABASE_URL is set, never by a static import (its types excepted).",
      from: { pathNot: "^lib/pg/" },
      to: { path: "^lib/pg/", dependencyTypesNot: ["dynamic-import", "type-only"] },
    },
    {
      name: "no-test-support-in-production",
      severity: "error",
      from: {},
      to: { path: "^(test|e2e|bench)/" },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    // Test support is not cruised, but an import of it from production code is still seen (and refused).
    doNotFollow: { path: ["node_modules", "^test/", "^e2e/", "^bench/"] },
    exclude: { path: ["\\.test\\.tsx?$", "^\\.next/"] },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};

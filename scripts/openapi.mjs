/**
 * `npm run openapi`: writes docs/openapi.json, the OpenAPI 3.1 document lib/openapi builds from
 * the route table and the zod contract, and the generated table of docs/http-api.md (between its
 * markers; the prose around it is kept). lib/openapi is TypeScript: it is loaded through Vite's
 * module runner, with the `@/` alias the app and the tests use. Run it after changing a route or
 * a schema; the unit test lib/openapi/openapi.test.ts fails until both files are regenerated.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runnerImport } from "vite";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { module: openapi } = await runnerImport(path.join(root, "lib/openapi/index.ts"), {
  root,
  configFile: false,
  logLevel: "error",
  resolve: { alias: { "@": root } },
});

const document = openapi.buildOpenApiDocument();
const json = path.join(root, "docs/openapi.json");
writeFileSync(json, openapi.renderOpenApiJson(document));
const page = path.join(root, "docs/http-api.md");
writeFileSync(page, openapi.withGeneratedTable(readFileSync(page, "utf8"), openapi.renderHttpApiTable(document)));
console.log(`wrote ${path.relative(root, json)} and the table of ${path.relative(root, page)}`);

/**
 * The HTTP API described once: the route table (every route file's methods, parameters, bodies
 * and answers by their zod schemas), the OpenAPI 3.1 document generated from it, and the table of
 * docs/http-api.md rendered from that. Imported only by the route that serves the document,
 * `npm run openapi` and the tests (.dependency-cruiser.cjs keeps the rest of lib/ from it).
 */
import type { OpenApiDocument } from "@/lib/contracts/http";
import { buildOpenApiDocument } from "./document";

export { buildOpenApiDocument, renderOpenApiJson } from "./document";
export { renderHttpApiTable, withGeneratedTable } from "./markdown";
export { CATCH_ALL, ROUTES } from "./routes";
export { concretePath, HTTP_METHODS, pathParamNames, routeFileOf, type HttpMethod, type Operation } from "./spec";
export { schemaAliases } from "./names";

let built: OpenApiDocument | undefined;

/** The document of the route table, built once per process (it depends on the code only). */
export function openApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument();
  return built;
}

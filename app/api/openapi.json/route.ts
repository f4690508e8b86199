import { json, route } from "@/lib/http";
import { openApiDocument } from "@/lib/openapi";

export const runtime = "nodejs";

/**
 * The OpenAPI 3.1 document of this API, generated from the route table and the zod contract
 * (the same as docs/openapi.json). An API GET like the others: in token mode it needs the token.
 */
export const GET = route(async () => json(openApiDocument()));

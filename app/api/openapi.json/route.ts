import { answer, route } from "@/lib/http";
import { openApiDocument } from "@/lib/openapi";
import { OpenApiDocumentSchema } from "@/lib/contracts/http";

export const runtime = "nodejs";

/**
 * The OpenAPI 3.1 document of this API, generated from the route table and the zod contract
 * (the same as docs/openapi.json). An API GET like the others: in token mode it needs the token.
 */
export const GET = route(async () => answer(OpenApiDocumentSchema, openApiDocument()));

import { SearchQuerySchema, SearchResultSchema } from "@/lib/contracts/http";
import { answer, parseWith, queryOf, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
// node:sqlite and worker threads (lib/search): Node only.
export const runtime = "nodejs";

/** Full-text search over every conversation's messages, with filters (lib/search). */
export const GET = route(async (request) => {
  const query = parseWith(SearchQuerySchema, queryOf(request), "Bad search query");
  const app = await getApp();
  return answer(SearchResultSchema, app.search.search(query));
});

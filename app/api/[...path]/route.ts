import { NotFoundError } from "@/lib/contracts/errors";
import { route } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Unknown API paths answer a JSON 404 rather than an HTML page. */
const notFound = route(async (request) => {
  throw new NotFoundError(`No API route ${request.method} ${new URL(request.url).pathname}.`);
});

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };

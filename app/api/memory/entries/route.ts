import { NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { answer, parseWith, queryOf, readBody, route } from "@/lib/http";
import { CreateMemoryBodySchema, MemoryListQuerySchema, MemoryListAnswerSchema, CreateMemoryAnswerSchema } from "@/lib/memory";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Entries of long-term memory: `q` searches (ranked), `kind`, `level`, `project` (`none`) filter, `offset`/`limit` page. */
export const GET = route(async (request) => {
  const query = parseWith(MemoryListQuerySchema, queryOf(request), "Bad memory query");
  const app = await getApp();
  return answer(MemoryListAnswerSchema, await app.memory.list(query));
});

/** Adds an entry by hand (author "person"), redacted first; a duplicate or contradiction updates the older entry. */
export const POST = route(async (request) => {
  const body = await readBody(request, CreateMemoryBodySchema);
  const app = await getApp();
  const conversation = body.source?.conversation_id;
  if (conversation) {
    // A source must resolve: the Memory page links to it.
    const known = await app.store.get(conversation).then(
      () => true,
      (error: unknown) => (error instanceof NotFoundError ? false : Promise.reject(error)),
    );
    if (!known) throw new ValidationError(`No conversation "${conversation}" to cite as the source.`, [{ path: "source.conversation_id", message: "unknown conversation" }]);
  }
  const result = await app.memory.create(body);
  return answer(CreateMemoryAnswerSchema, result, { status: result.action === "added" ? 201 : 200 });
});

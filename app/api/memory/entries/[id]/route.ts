import { answer, parseWith, readBody, route } from "@/lib/http";
import { MemoryIdSchema, PatchMemoryBodySchema, MemoryEntryAnswerSchema } from "@/lib/memory";
import { getApp } from "@/lib/server/get-app";
import { DeletedResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/** One entry. */
export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(MemoryIdSchema, params.id, "Bad memory entry id");
  const app = await getApp();
  return answer(MemoryEntryAnswerSchema, { entry: await app.memory.get(id) });
});

/** Edits the statement, subject or kind (redacted first), or re-levels it (level, grant, project). */
export const PATCH = route<Params>(async (request, params) => {
  const id = parseWith(MemoryIdSchema, params.id, "Bad memory entry id");
  const body = await readBody(request, PatchMemoryBodySchema);
  const app = await getApp();
  return answer(MemoryEntryAnswerSchema, { entry: await app.memory.update(id, body) });
});

/** Deletes one entry. */
export const DELETE = route<Params>(async (_request, params) => {
  const id = parseWith(MemoryIdSchema, params.id, "Bad memory entry id");
  const app = await getApp();
  await app.memory.remove(id);
  return answer(DeletedResponseSchema, { deleted: id });
});

import { answer, readBody, route } from "@/lib/http";
import { RenameRoleFileBodySchema, RoleAnyResponseSchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Renames a listed role file to `<id>.md` (the suggested id by default); 409 when that id exists. */
export const POST = route(async (request) => {
  const body = await readBody(request, RenameRoleFileBodySchema);
  const app = await getApp();
  return answer(RoleAnyResponseSchema, { role: await app.roles.renameFile(body) });
});

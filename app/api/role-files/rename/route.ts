import { answer, authorOf, readBody, route } from "@/lib/http";
import { RenameRoleFileBodySchema, RoleAnyResponseSchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Renames a listed role file to `<id>.md` (the suggested id by default); 409 when that id exists. */
export const POST = route(async (request) => {
  const body = await readBody(request, RenameRoleFileBodySchema);
  const app = await getApp();
  const role = await app.roles.renameFile(body);
  await (await getApp()).activity.record(authorOf(request), "role_file_renamed", "role_file");
  return answer(RoleAnyResponseSchema, { role });
});

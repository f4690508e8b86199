import { answer, authorOf, readBody, route } from "@/lib/http";
import { ImportRoleBodySchema, RoleResponseSchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Imports the raw text of an `.md` role file, stored byte for byte. */
export const POST = route(async (request) => {
  const body = await readBody(request, ImportRoleBodySchema);
  const app = await getApp();
  const role = await app.roles.importRole(body);
  await (await getApp()).activity.record(authorOf(request), "role_imported", `role:${role.id}`);
  return answer(RoleResponseSchema, { role }, { status: 201 });
});

import { answer, authorOf, readBody, route } from "@/lib/http";
import { CreateRoleBodySchema, RoleListResponseSchema, RoleResponseSchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Every role file, with broken ones as error entries. */
export const GET = route(async () => {
  const app = await getApp();
  return answer(RoleListResponseSchema, { roles: await app.roles.list() });
});

/** Creates a role from the editor's form. */
export const POST = route(async (request) => {
  const body = await readBody(request, CreateRoleBodySchema);
  const app = await getApp();
  const role = await app.roles.create(body);
  await (await getApp()).activity.record(authorOf(request), "role_created", `role:${role.id}`);
  return answer(RoleResponseSchema, { role }, { status: 201 });
});

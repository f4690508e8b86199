import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { RoleIdSchema, UpdateRoleBodySchema, RoleAnyResponseSchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/get-app";
import { DeletedResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

export const GET = route<Params>(async (request, params) => {
  const id = parseWith(RoleIdSchema, params.id, "Bad role id");
  const app = await getApp();
  return answer(RoleAnyResponseSchema, { role: await app.roles.get(id) });
});

/** Saves the form (only changed fields are rewritten) or the raw file text. */
export const PUT = route<Params>(async (request, params) => {
  const id = parseWith(RoleIdSchema, params.id, "Bad role id");
  const body = await readBody(request, UpdateRoleBodySchema);
  const app = await getApp();
  const role = await app.roles.update(id, body);
  await (await getApp()).activity.record(authorOf(request), "role_saved", `role:${id}`);
  return answer(RoleAnyResponseSchema, { role });
});

export const DELETE = route<Params>(async (request, params) => {
  const id = parseWith(RoleIdSchema, params.id, "Bad role id");
  const app = await getApp();
  await app.roles.remove(id);
  await (await getApp()).activity.record(authorOf(request), "role_deleted", `role:${id}`);
  return answer(DeletedResponseSchema, { deleted: id });
});

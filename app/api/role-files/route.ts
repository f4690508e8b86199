import { answer, authorOf, parseWith, queryOf, readBody, route } from "@/lib/http";
import { RawRoleBodySchema, RoleFileQuerySchema, RoleAnyResponseSchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/get-app";
import { DeletedResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * A role file by its exact name (`?name=Power Shell 5.1.md`): how a file whose name is no valid
 * id is opened, fixed (raw text) and deleted. The name must be one the roles folder lists.
 */
export const GET = route(async (request) => {
  const { name } = parseWith(RoleFileQuerySchema, queryOf(request), "Bad role file name");
  const app = await getApp();
  return answer(RoleAnyResponseSchema, { role: await app.roles.getFile(name) });
});

/** Saves the file's raw text (it must load). */
export const PUT = route(async (request) => {
  const { name } = parseWith(RoleFileQuerySchema, queryOf(request), "Bad role file name");
  const body = await readBody(request, RawRoleBodySchema);
  const app = await getApp();
  const role = await app.roles.saveFile(name, body);
  await (await getApp()).activity.record(authorOf(request), "role_file_saved", `role_file:${name}`);
  return answer(RoleAnyResponseSchema, { role });
});

export const DELETE = route(async (request) => {
  const { name } = parseWith(RoleFileQuerySchema, queryOf(request), "Bad role file name");
  const app = await getApp();
  await app.roles.removeFile(name);
  await app.activity.record(authorOf(request), "role_file_deleted", `role_file:${name}`);
  return answer(DeletedResponseSchema, { deleted: name });
});

import { json, readBody, route } from "@/lib/http";
import { CreateRoleBodySchema } from "@/lib/roles/schema";
import { getApp } from "@/lib/server/app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Every role file, with broken ones as error entries. */
export const GET = route(async () => {
  const app = await getApp();
  return json({ roles: await app.roles.list() });
});

/** Creates a role from the editor's form. */
export const POST = route(async (request) => {
  const body = await readBody(request, CreateRoleBodySchema);
  const app = await getApp();
  return json({ role: await app.roles.create(body) }, { status: 201 });
});

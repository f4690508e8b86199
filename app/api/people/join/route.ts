import { ConflictError } from "@/lib/contracts/errors";
import { JoinAnswerSchema, JoinBodySchema } from "@/lib/contracts/people";
import { answer, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Accepts an invitation (needs no sign-in: the token is the proof): the invitee's display name
 * and password make a person of the invitation's role, signed in at once. 404 for a link that is
 * not one, 409 for one used or expired, or a name that is taken (`details.reason`).
 */
export const POST = route(async (request) => {
  const body = await readBody(request, JoinBodySchema);
  const app = await getApp();
  if (!app.people) throw new ConflictError("This server has no people: there is nothing to join.", { reason: "not_team_mode" });
  const { person, cookies } = await app.people.join(body.token, body.name, body.password);
  await app.activity.record({ id: person.id, name: person.name, via: "password" }, "person_joined", `person:${person.id}`, { role: person.role });
  const response = answer(JoinAnswerSchema, { person }, { status: 201 });
  for (const cookie of cookies) response.headers.append("set-cookie", cookie);
  return response;
});

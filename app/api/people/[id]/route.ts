import { ConflictError } from "@/lib/contracts/errors";
import { PatchPersonBodySchema, PersonAnswerSchema, PersonIdSchema, RemovedPersonSchema } from "@/lib/contracts/people";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

/** Changes a person's role; it holds from their next request. 404 for nobody, 409 for the owner. */
export const PATCH = route<Params>(async (request, params) => {
  const id = parseWith(PersonIdSchema, params.id, "Bad person id");
  const body = await readBody(request, PatchPersonBodySchema);
  const app = await getApp();
  if (!app.people) throw new ConflictError("This server has no people.", { reason: "not_team_mode" });
  const before = (await app.people.list()).find((p) => p.id === id);
  const person = await app.people.setRole(id, body.role);
  await app.activity.record(authorOf(request), "person_role_changed", `person:${id}`, { name: person.name, from: before?.role ?? null, to: body.role });
  return answer(PersonAnswerSchema, { person });
});

/**
 * Removes a person: every session of theirs ends at once (their next request is 401), then their
 * sign-in, and every event stream they hold open closes, on every instance.
 */
export const DELETE = route<Params>(async (request, params) => {
  const id = parseWith(PersonIdSchema, params.id, "Bad person id");
  const app = await getApp();
  if (!app.people) throw new ConflictError("This server has no people.", { reason: "not_team_mode" });
  const { person, sessions } = await app.people.remove(id);
  await app.presence.signOut(id);
  await app.activity.record(authorOf(request), "person_removed", `person:${id}`, { name: person.name, role: person.role, sessions_revoked: sessions });
  return answer(RemovedPersonSchema, { removed: id, sessions_revoked: sessions });
});

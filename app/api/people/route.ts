import { ConflictError } from "@/lib/contracts/errors";
import { InviteAnswerSchema, InviteBodySchema, OWNER_ID, PeopleListSchema, type Person } from "@/lib/contracts/people";
import { answer, authorOf, readBody, route } from "@/lib/http";
import { getApp, type AstrionApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The people of team mode; a clear 409 on a server without them (no ASTRION_TOKEN). */
function peopleOf(app: AstrionApp): NonNullable<AstrionApp["people"]> {
  if (!app.people) throw new ConflictError("This server has no people: start it with ASTRION_TOKEN to invite anyone.", { reason: "not_team_mode" });
  return app.people;
}

/** Everyone (the owner first) and the open invitations. The owner's alone (lib/security/route-roles.ts). */
export const GET = route(async (request) => {
  const app = await getApp();
  // Only the owner may ask (lib/security/route-roles.ts): the one asking is the owner.
  const owner: Person = { id: OWNER_ID, name: authorOf(request).name, role: "owner", joined_at: null };
  const people = app.people;
  const ttlHours = people ? people.config.inviteTtlMs / 3600_000 : 0;
  return answer(PeopleListSchema, {
    people: [owner, ...((await people?.list()) ?? [])],
    invitations: ((await people?.openInvitations()) ?? []).map((i) => ({ id: i.id, role: i.role, created_at: new Date(i.created_at).toISOString(), expires_at: new Date(i.expires_at).toISOString() })),
    invite_ttl_hours: ttlHours || 72,
  });
});

/**
 * A new invitation with a role: its link (`/join#<token>`) is in this answer only, since only a
 * hash of the token is kept. It works once and expires (ASTRION_INVITE_TTL_HOURS, default 72).
 */
export const POST = route(async (request) => {
  const body = await readBody(request, InviteBodySchema);
  const app = await getApp();
  const author = authorOf(request);
  const { row, token } = await peopleOf(app).invite(body.role, author.id);
  await app.activity.record(author, "person_invited", `invitation:${row.id}`, { role: body.role });
  const invitation = { id: row.id, role: row.role, created_at: new Date(row.created_at).toISOString(), expires_at: new Date(row.expires_at).toISOString() };
  return answer(InviteAnswerSchema, { invitation, path: `/join#${token}`, token }, { status: 201 });
});

/** The browser's calls of the People page, the invitation and the sign-in by name (issue 32). */
import { queryOptions } from "@tanstack/react-query";
import { ActivityAnswerSchema } from "@/lib/contracts/activity";
import { SignInBodySchema, SignInResponseSchema } from "@/lib/contracts/http";
import {
  InviteAnswerSchema,
  JoinAnswerSchema,
  JoinBodySchema,
  PeopleListSchema,
  PersonAnswerSchema,
  RemovedPersonSchema,
  type PersonRole,
} from "@/lib/contracts/people";
import { apiFetch, bodyOf } from "./api";

/** Query keys of the people. */
export const peopleKeys = { list: ["people"] as const, activity: (person: string | null) => ["activity", person] as const };

/** `GET /api/people`: everyone and the open invitations (the owner's alone). */
export function peopleQuery() {
  return queryOptions({ queryKey: peopleKeys.list, queryFn: ({ signal }) => apiFetch("/api/people", PeopleListSchema, { signal }), staleTime: 10_000 });
}

/** `GET /api/activity`: who changed roles, settings and people; one person's with `person`. */
export function activityQuery(person: string | null) {
  const path = person ? `/api/activity?person=${encodeURIComponent(person)}` : "/api/activity";
  return queryOptions({ queryKey: peopleKeys.activity(person), queryFn: ({ signal }) => apiFetch(path, ActivityAnswerSchema, { signal }), staleTime: 10_000 });
}

/** `POST /api/people`: an invitation link for `role`, shown once. */
export function invitePerson(role: Exclude<PersonRole, "owner">) {
  return apiFetch("/api/people", InviteAnswerSchema, { method: "POST", body: { role } });
}

/** `PATCH /api/people/[id]`: a new role. */
export function changeRole(id: string, role: Exclude<PersonRole, "owner">) {
  return apiFetch(`/api/people/${encodeURIComponent(id)}`, PersonAnswerSchema, { method: "PATCH", body: { role } });
}

/** `DELETE /api/people/[id]`: removes the person and ends their sessions. */
export function removePerson(id: string) {
  return apiFetch(`/api/people/${encodeURIComponent(id)}`, RemovedPersonSchema, { method: "DELETE" });
}

/** `POST /api/people/join`: accepts an invitation; the server sets the session cookie. */
export function joinTeam(token: string, name: string, password: string) {
  return apiFetch("/api/people/join", JoinAnswerSchema, { method: "POST", body: bodyOf(JoinBodySchema, { token, name, password }) });
}

/** `POST /api/auth/signin` with a name and password (team mode). */
export function signInWithPassword(name: string, password: string, next?: string) {
  return apiFetch("/api/auth/signin", SignInResponseSchema, { method: "POST", body: bodyOf(SignInBodySchema, { name, password, next }) });
}

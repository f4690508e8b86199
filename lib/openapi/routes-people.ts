/**
 * Route table (see ./spec.ts): the people of team mode (issue 32) — the People page's list,
 * invitations, role changes and removal, accepting an invitation, who this browser is — and the
 * log of who changed a role file, a setting or the people.
 */
import { ActivityAnswerSchema, ActivityQuerySchema } from "@/lib/contracts/activity";
import {
  InviteAnswerSchema,
  InviteBodySchema,
  JoinAnswerSchema,
  JoinBodySchema,
  MeAnswerSchema,
  PatchPersonBodySchema,
  PeopleListSchema,
  PersonAnswerSchema,
  PersonIdSchema,
  RemovedPersonSchema,
} from "@/lib/contracts/people";
import type { RouteSpec } from "./spec";

export const PEOPLE_ROUTES: readonly RouteSpec[] = [
  {
    path: "/api/people",
    methods: {
      GET: {
        summary: "Everyone (the owner first) with their roles, and the invitations still open. The owner's alone.",
        description: "→ `{people: [{id, name, role, joined_at}], invitations: [{id, role, created_at, expires_at}], invite_ttl_hours}`; 403 for anyone but the owner",
        answers: [{ status: 200, json: PeopleListSchema }],
      },
      POST: {
        summary: "Invites a person with a role: a link that works once, expires, and is in this answer only.",
        description:
          "`{role: approver|editor|viewer}` → 201 `{invitation, path, token}`; `path` is `/join#<token>` (the token stays in the fragment, which browsers never send); only a hash of the token is stored; it works for ASTRION_INVITE_TTL_HOURS (default 72); 409 on a server without people (no ASTRION_TOKEN)",
        body: { json: InviteBodySchema },
        answers: [{ status: 201, json: InviteAnswerSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/people/{id}",
    params: { id: PersonIdSchema },
    methods: {
      PATCH: {
        summary: "Changes a person's role; it holds from their next request.",
        description: "`{role}` → `{person}`; 404 for nobody, 409 for the owner",
        body: { json: PatchPersonBodySchema },
        answers: [{ status: 200, json: PersonAnswerSchema }],
        errors: [404, 409],
      },
      DELETE: {
        summary: "Removes a person: every session of theirs ends at once (their next request is 401), then their sign-in.",
        description: "→ `{removed, sessions_revoked}`; 404 for nobody, 409 for the owner",
        answers: [{ status: 200, json: RemovedPersonSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/people/join",
    methods: {
      POST: {
        summary: "Accepts an invitation: the invitee's display name and password make a person of its role, signed in at once.",
        description: "`{token, name, password}` → 201 `{person}` with the session cookie; 404 for a link that is not one; 409 with `details.reason` `used`, `expired` or `name_taken`",
        body: { json: JoinBodySchema },
        answers: [{ status: 201, json: JoinAnswerSchema }],
        errors: [404, 409],
        public: true,
      },
    },
  },
  {
    path: "/api/people/me",
    methods: {
      GET: {
        summary: "Who this browser is (name, role, how they signed in), and whether the server has people.",
        description: "→ `{me: {id, name, role, via}, team}`; with no configuration `me` is the owner at the machine (`via: local`)",
        answers: [{ status: 200, json: MeAnswerSchema }],
      },
    },
  },
  {
    path: "/api/activity",
    methods: {
      GET: {
        summary: "Who changed a role file, a setting or the people, and when (activity.jsonl), optionally one person's changes.",
        description: "→ `{records}`: timeline records whose envelope's `author` is who did it; `?person=<id>` keeps one person's",
        query: ActivityQuerySchema,
        answers: [{ status: 200, json: ActivityAnswerSchema }],
      },
    },
  },
];

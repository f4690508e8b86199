/**
 * People of a team (issue 32): their roles, who did something (an author on a message, an
 * envelope, a timeline record) and the HTTP contract of the People page, the invitation and the
 * sign-in. Pure: the browser parses answers with the same schemas.
 */
import { z } from "zod";

/** The roles, most powerful first. */
export const PERSON_ROLES = ["owner", "approver", "editor", "viewer"] as const;

/**
 * What a person may do: `owner` everything and the people; `approver` what an editor does, plus
 * approving commands and writes and deciding shared-context conflicts; `editor` starting
 * conversations, messaging and stopping agents, editing roles and settings; `viewer` reading.
 */
export const PersonRoleSchema = z.enum(PERSON_ROLES);
/** One of {@link PERSON_ROLES}. */
export type PersonRole = z.infer<typeof PersonRoleSchema>;

/**
 * The id of the owner who holds the machine or the access token: a stable id, never a signed-up
 * person's (those are random ids of the authentication library).
 */
export const OWNER_ID = "owner";

/** A person's id: the owner's, or the authentication library's id of an invited person. */
export const PersonIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a person id of letters, digits, _ and -");

/** A display name: what others see beside a person's messages and actions. */
export const DisplayNameSchema = z
  .string()
  .trim()
  .min(1, "a display name cannot be empty")
  .max(60, "at most 60 characters")
  .regex(/^[^\u0000-\u001f\u007f[\]]+$/, "no control characters or square brackets");

/**
 * How the server knew who it was: `local` (the person at the machine, no configuration),
 * `token` (the access token, which signs in as the owner), `password` (a person's own sign-in).
 */
export const AuthenticatedViaSchema = z.enum(["local", "token", "password"]);

/**
 * Who did something: recorded on a person's message (`metadata.author`), on a timeline envelope
 * (`author`, beside `from`) and in the export.
 */
export const AuthorSchema = z.object({
  id: PersonIdSchema,
  name: z.string().min(1).max(80),
  via: AuthenticatedViaSchema.optional(),
});
/** Who did something. */
export type Author = z.infer<typeof AuthorSchema>;

/** Who is asking, as the request guard found it: an author with a role. */
export const IdentitySchema = AuthorSchema.extend({ role: PersonRoleSchema, via: AuthenticatedViaSchema });
/** Who is asking. */
export type Identity = z.infer<typeof IdentitySchema>;

/**
 * The party address of an author on an envelope (`from` / `to`): the owner is `user`, the person
 * at the keyboard as before there were people; anyone else is `person:<id>`.
 */
export function authorParty(author: Pick<Author, "id"> | undefined): string {
  return !author || author.id === OWNER_ID ? "user" : `person:${author.id}`;
}

/**
 * The name the team's models are told a person's words and decisions come from: theirs when
 * people sign in; "User", as ever, for the one person at an unconfigured machine.
 */
export function speakerName(author: Author): string {
  return author.via === "local" ? "User" : author.name;
}

/** Whether `role` may do what `needed` allows (`public` needs no one signed in). */
export function roleAllows(role: PersonRole, needed: PersonRole | "public"): boolean {
  if (needed === "public") return true;
  return PERSON_ROLES.indexOf(role) <= PERSON_ROLES.indexOf(needed);
}

/** One person on the People page (never a password or a session). */
export const PersonSchema = z.object({
  id: PersonIdSchema,
  name: z.string(),
  role: PersonRoleSchema,
  /** UTC ISO; null for the owner, who was never invited. */
  joined_at: z.iso.datetime().nullable(),
});
/** One person. */
export type Person = z.infer<typeof PersonSchema>;

/** An invitation not used yet (its link is never shown again: only a hash of its token is stored). */
export const InvitationSchema = z.object({
  id: z.string(),
  role: PersonRoleSchema,
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});

/** `GET /api/people`: everyone, the owner first, and the invitations still open. */
export const PeopleListSchema = z.object({
  people: z.array(PersonSchema),
  invitations: z.array(InvitationSchema),
  /** How long a new invitation works, in hours (ASTRION_INVITE_TTL_HOURS, default 72). */
  invite_ttl_hours: z.number().positive(),
});

/** `POST /api/people`: invite a person with a role (not the owner's: there is one owner). */
export const InviteBodySchema = z.object({ role: z.enum(["approver", "editor", "viewer"]) });

/** Answer of `POST /api/people`: the link, shown this once. */
export const InviteAnswerSchema = z.object({
  invitation: InvitationSchema,
  /** The path of the link (`/join#<token>`): the token stays in the fragment, which browsers never send. */
  path: z.string(),
  token: z.string(),
});

/** `PATCH /api/people/[id]`: a new role. */
export const PatchPersonBodySchema = z.object({ role: z.enum(["approver", "editor", "viewer"]) });

/** Answer of `PATCH /api/people/[id]`. */
export const PersonAnswerSchema = z.object({ person: PersonSchema });

/** Answer of `DELETE /api/people/[id]`: removed, with how many of their sessions ended. */
export const RemovedPersonSchema = z.object({ removed: PersonIdSchema, sessions_revoked: z.number().int().nonnegative() });

/** `POST /api/people/join`: the invitation's token, the display name and password the invitee picks. */
export const JoinBodySchema = z.object({
  token: z.string().min(16).max(200),
  name: DisplayNameSchema,
  password: z.string().min(10, "at least 10 characters").max(200, "at most 200 characters"),
});

/** Answer of `POST /api/people/join`: signed in as the new person. */
export const JoinAnswerSchema = z.object({ person: PersonSchema });

/** Answer of `GET /api/people/me`: who this browser is, and whether the server has people at all. */
export const MeAnswerSchema = z.object({
  me: IdentitySchema,
  /** Team mode: ASTRION_TOKEN is set, so people sign in; false on an unconfigured localhost. */
  team: z.boolean(),
});

/**
 * `details` of a 403 for a role that may not do something: the page words it from `needed` in its
 * own language (the server's `message` is already in the request's language).
 */
export const RoleRefusalSchema = z.object({ reason: z.literal("role"), role: PersonRoleSchema, needed: PersonRoleSchema });

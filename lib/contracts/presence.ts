/**
 * Presence (issue 32): who has a conversation open, which agent's drawer each has open and to
 * which agent each is typing. The frames of the `presence` event on the conversation's SSE stream,
 * the acknowledgment a page posts back, and the index's counts. Never stored: these shapes live in
 * a process's memory or in Redis, never on disk. Pure: the browser parses with the same schemas.
 */
import { z } from "zod";
import { DisplayNameSchema, PersonIdSchema } from "./people";

/** One open event stream (a tab): the server names it when the stream opens. */
export const ViewerIdSchema = z.string().regex(/^v_[A-Za-z0-9_-]{8,64}$/, "a viewer id the stream handed out");

/** To whom a person types: the Team Leader, or a sub-agent by its number. */
export const TypingTargetSchema = z.union([z.literal("leader"), z.number().int().positive()]);
/** `"leader"` or a sub-agent's number. */
export type TypingTarget = z.infer<typeof TypingTargetSchema>;

/** A person as others see them beside a conversation. */
export const PresencePersonSchema = z.object({ id: PersonIdSchema, name: DisplayNameSchema });
/** `{id, name}`. */
export type PresencePerson = z.infer<typeof PresencePersonSchema>;

/**
 * One person present: several tabs of the same person count once; `drawers` are the sub-agents
 * whose drawer any of their tabs has open, `typing` the agents any of them is typing to now.
 */
export const PresentPersonSchema = z.object({
  person: PresencePersonSchema,
  drawers: z.array(z.number().int().positive()),
  typing: z.array(TypingTargetSchema),
});
/** One person present (see {@link PresentPersonSchema}). */
export type PresentPerson = z.infer<typeof PresentPersonSchema>;

/**
 * The data of a `presence` SSE event (an event without an id: it is not replayed, a reconnect
 * gets the current people again):
 * - `hello`: the first, naming this stream's viewer id (for the acknowledgments) and its person;
 * - `people`: everyone present now, sent when the stream opens and on every change;
 * - `heartbeat`: every ~10 s; the page answers with {@link PresenceBeatBodySchema}.
 */
export const PresenceFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), viewer: ViewerIdSchema, person: PresencePersonSchema }),
  z.object({ type: z.literal("people"), people: z.array(PresentPersonSchema) }),
  z.object({ type: z.literal("heartbeat") }),
]);
/** One `presence` SSE event's data. */
export type PresenceFrame = z.infer<typeof PresenceFrameSchema>;

/**
 * `POST /api/conversations/[id]/presence`: the acknowledgment of a heartbeat (and a change of
 * drawer or typing, sent at once): keeps the viewer present and says what it has open.
 */
export const PresenceBeatBodySchema = z.object({
  viewer: ViewerIdSchema,
  /** The sub-agent whose drawer is open, or null. */
  drawer: z.number().int().positive().nullable().default(null),
  /** Whom the person is typing to now, or null (stopped, or sent). */
  typing: TypingTargetSchema.nullable().default(null),
});
/** The body of an acknowledgment. */
export type PresenceBeat = z.infer<typeof PresenceBeatBodySchema>;

/** Its answer: `known: false` when the viewer is not registered (its stream closed or it expired): the page reopens its stream. */
export const PresenceBeatResponseSchema = z.object({ known: z.boolean() });

/** `GET /api/presence`: how many people have each conversation open (conversations nobody has open are left out). */
export const PresenceCountsSchema = z.object({ counts: z.record(z.string(), z.number().int().positive()) });

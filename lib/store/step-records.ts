/**
 * The step log's records and the pure rules for applying them (no I/O): a record carries the
 * whole of a small file (metadata) or the messages of a messages file from a position on, so
 * applying it to a file that already holds it changes nothing.
 */
import { z } from "zod";
import { ValidationError, zodIssues } from "@/lib/contracts/errors";
import { AgentMessagesFileSchema, AgentMetadataSchema, ConversationMetadataSchema, MessageSchema, type Message } from "@/lib/contracts/on-disk";

const HeadSchema = z.record(z.string(), z.unknown());
const MessagesDelta = { at: z.number().int().nonnegative(), add: z.array(MessageSchema), head: HeadSchema };

/**
 * The JSON Lines files beside a conversation's seed files whose appends an open conversation
 * records in its step log (lib/store/logged-lines.ts): the timeline, the context reports, the
 * action journal.
 */
const LOGGED_LINE_FILES = ["timeline.jsonl", "context.jsonl", "actions.jsonl"] as const;
/** One of {@link LOGGED_LINE_FILES}. */
export type LoggedLineFile = (typeof LOGGED_LINE_FILES)[number];

/** One record of the step log. */
export const StepRecordSchema = z.discriminatedUnion("k", [
  z.object({ k: z.literal("conv"), v: ConversationMetadataSchema }),
  z.object({ k: z.literal("leader"), ...MessagesDelta }),
  z.object({ k: z.literal("agent"), id: z.number().int().positive(), v: AgentMetadataSchema }),
  // A sub-agent created: both of its files whole (its folder is written from memory later).
  z.object({ k: z.literal("agent_new"), id: z.number().int().positive(), v: AgentMetadataSchema, messages: AgentMessagesFileSchema }),
  z.object({ k: z.literal("agent_messages"), id: z.number().int().positive(), ...MessagesDelta }),
  z.object({ k: z.literal("line"), f: z.enum(LOGGED_LINE_FILES), line: z.string() }),
]);
/** One record of the step log. */
export type StepRecord = z.infer<typeof StepRecordSchema>;

/** The messages appended by `next` to `prev` (same objects up front), or all of them from 0. */
export function messagesDelta(prev: readonly Message[], next: readonly Message[]): { at: number; add: Message[] } {
  if (next.length >= prev.length) {
    let same = true;
    for (let i = 0; i < prev.length; i++) {
      if (prev[i] !== next[i]) {
        same = false;
        break;
      }
    }
    if (same) return { at: prev.length, add: next.slice(prev.length) };
  }
  return { at: 0, add: [...next] };
}

/** A messages file without its messages (the fields a record carries as `head`). */
export function headOf<T extends { messages: Message[] }>(file: T): Record<string, unknown> {
  const head: Record<string, unknown> = { ...file };
  delete head.messages;
  return head;
}

/** `file` with its messages from `at` on replaced by `add` and its other fields by `head`. */
export function applyDelta<T extends { messages: Message[] }>(file: T, at: number, add: Message[], head: Record<string, unknown>): T {
  if (at > file.messages.length) throw new Error(`the step log continues a messages list at ${at}, but the file holds ${file.messages.length}`);
  // Spread over the old file first, so the keys keep their places in the written JSON.
  const out: Record<string, unknown> = { ...file, ...head, messages: [...file.messages.slice(0, at), ...add] };
  for (const key of Object.keys(out)) if (key !== "messages" && !Object.hasOwn(head, key)) delete out[key];
  return out as T;
}

/**
 * Checks `value` against `schema` and returns the value itself (not zod's copy, which would
 * reorder keys and cost a deep clone).
 * @throws ValidationError naming what was refused.
 */
export function checked<S extends z.ZodType>(schema: S, value: z.output<S>, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(`Refusing to save ${what}`, zodIssues(result.error));
  return value;
}

/**
 * {@link checked} for a change of a value that passed the same check (`prev`): only the fields
 * whose values differ from `prev`'s (by identity), or that `next` dropped, are checked, each
 * against its own schema; the others are the values that passed before. For the seed files'
 * object schemas, whose rules are all per field (no rule spans fields), this accepts exactly what
 * a whole check accepts, at the cost of what changed. `skip`: fields checked elsewhere (a messages
 * file's `messages`, checked as the delta a record carries).
 * @throws ValidationError naming what was refused, with each issue's path from the file's root.
 */
export function checkedChange<T extends Record<string, unknown>>(schema: z.ZodObject, prev: T, next: T, what: string, skip?: string): T {
  const shape = schema.shape as Record<string, z.ZodType | undefined>;
  const issues: { path: string; message: string }[] = [];
  const check = (key: string, value: unknown) => {
    const field = shape[key];
    if (!field) return; // an extra field: the seed's schemas are loose, any value passes
    const result = field.safeParse(value);
    if (!result.success) for (const issue of zodIssues(result.error)) issues.push({ path: issue.path ? `${key}.${issue.path}` : key, message: issue.message });
  };
  for (const key of Object.keys(next)) if (key !== skip && next[key] !== prev[key]) check(key, next[key]);
  for (const key of Object.keys(prev)) if (key !== skip && !Object.hasOwn(next, key)) check(key, undefined);
  if (issues.length) throw new ValidationError(`Refusing to save ${what}`, issues);
  return next;
}

/** New messages, as a change adds them (made once: a zod schema is costly to build). */
const NewMessagesSchema = z.array(MessageSchema);

/**
 * A change of a messages file: its head checked where it changed ({@link checkedChange}) and the
 * messages it adds checked whole (`add`, the delta its record carries).
 * @throws ValidationError naming what was refused.
 */
export function checkedMessagesChange<T extends { messages: Message[] }>(schema: z.ZodObject, prev: T, next: T, add: Message[], what: string): void {
  checkedChange(schema, prev, next, what, "messages");
  checked(NewMessagesSchema, add, what);
}

/** The value as `schema` parses it. @throws ValidationError naming what did not match. */
export function parsed<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(`${what} does not match its schema`, zodIssues(result.error));
  return result.data;
}


/**
 * A mutator's result `changed`, made from `base`, put on `current` when another change of the same
 * file landed while the mutator ran (a leader's step sets metadata.json's `updated_at` and token
 * totals outside the metadata queue): the fields the mutator changed or dropped win, the others
 * keep the newer values, so neither change is lost.
 */
export function rebased<T extends Record<string, unknown>>(base: T, changed: T, current: T): T {
  if (current === base) return changed;
  const out: Record<string, unknown> = { ...current };
  for (const key of Object.keys(changed)) if (changed[key] !== base[key]) out[key] = changed[key];
  for (const key of Object.keys(base)) if (!Object.hasOwn(changed, key)) delete out[key];
  return out as T;
}

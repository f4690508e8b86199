/**
 * The message envelope (SPEC §3, seed 003 §3.1): every message between the user, the Team
 * Leader, sub-agents and the system travels in one shape, so the timeline, the bus and the UI
 * never have to guess what a message is. Pure: no I/O, so the browser can import it too.
 *
 * Causality is carried by three ids: a user message starts a trace (`trace_id`), every
 * message it causes keeps that `trace_id`, and `parent_turn_id` points at the turn that caused
 * it (a reply at its request), so a whole collaboration can be rebuilt from the timeline.
 */
import { z } from "zod";
import { AstrionError, ValidationError, zodIssues } from "./errors";
import { AuthorSchema, type Author } from "./people";

/** Envelope kinds. request/reply may carry model-written content; the rest are produced by code. */
export const ENVELOPE_TYPES = ["request", "reply", "broadcast", "event", "control"] as const;

/** `type` of an envelope. */
export const EnvelopeTypeSchema = z.enum(ENVELOPE_TYPES);
/** `type` of an envelope. */
export type EnvelopeType = z.infer<typeof EnvelopeTypeSchema>;

/**
 * Types a model may never originate (seed 003 §3.3): routing, pausing, degrading and terminating
 * are decided by code, or a model could start a message storm or an unreproducible run.
 */
export const CODE_ONLY_TYPES: ReadonlySet<EnvelopeType> = new Set<EnvelopeType>(["broadcast", "event", "control"]);

/** `priority` of an envelope. */
export const PrioritySchema = z.enum(["low", "normal", "high", "urgent"]);
/** `priority` of an envelope. */
export type Priority = z.infer<typeof PrioritySchema>;

/** Who produced an envelope's decision to exist: program code, or a model's output. */
export const ProducerSchema = z.enum(["code", "model"]);
/** Who produced an envelope. */
export type Producer = z.infer<typeof ProducerSchema>;

/**
 * Ids are a prefix and random hex (`trace_7a8f21c4…`). Readers accept any id made of safe
 * characters after the prefix, so the ids double as file names and URL segments without escaping.
 */
const idSchema = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,64}$`), `must look like ${prefix}_<hex>`);

/** `trace_<hex>`: one user request and everything it causes. */
export const TraceIdSchema = idSchema("trace");
/** `turn_<hex>`: one step of the collaboration. */
export const TurnIdSchema = idSchema("turn");
/** `msg_<hex>`: one envelope. */
export const MessageIdSchema = idSchema("msg");

/**
 * A party address (`from` / `to`). Conventions used by this product: `user`, `leader`,
 * `system`, `agent:<agent_id>`, `all` (everyone in the conversation) and
 * `capability:<tag>` (whoever declares that capability). Not an enum, so the governance layer
 * can add subjects without a schema change.
 */
export const PartySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s\u0000-\u001f]+$/, "must not contain spaces or control characters");

/** The person at the keyboard. */
export const USER_PARTY = "user";
/** The Team Leader agent. */
export const LEADER_PARTY = "leader";
/** The runtime itself (caps, stops, restarts). */
export const SYSTEM_PARTY = "system";
/** Everyone in the conversation (broadcast target). */
export const ALL_PARTY = "all";

/** The address of sub-agent `agentId` (`agent:3`). */
export function agentParty(agentId: number): string {
  if (!Number.isInteger(agentId) || agentId < 1) throw new RangeError(`invalid agent id: ${agentId}`);
  return `agent:${agentId}`;
}

/** The agent id inside an `agent:<id>` address, or null for any other party. */
export function agentIdOfParty(party: string): number | null {
  const match = /^agent:([1-9]\d*)$/.exec(party);
  return match ? Number(match[1]) : null;
}

/** `meta`: delivery hints that are not content. */
export const EnvelopeMetaSchema = z.looseObject({
  /** Stable per side-effecting action (`trace_id:action:target`), so a retry never acts twice. */
  idempotency_key: z.string().min(1).max(500).optional(),
  /** A model key (or tier) the sender suggests for handling this message. */
  model_hint: z.string().min(1).max(200).optional(),
  /** How long the sender will wait for the first response, in milliseconds. */
  deadline_ms: z.number().int().positive().optional(),
});
/** `meta` of an envelope. */
export type EnvelopeMeta = z.infer<typeof EnvelopeMetaSchema>;

/** A message's structured content. Free-form: each `type`/action defines its own keys. */
export const PayloadSchema = z.record(z.string(), z.unknown());
/** `payload` of an envelope. */
export type Payload = z.infer<typeof PayloadSchema>;

/**
 * The envelope. Loose, like the store's schemas, so an envelope written by a newer version
 * keeps its extra fields through a read-modify-write.
 */
export const EnvelopeSchema = z.looseObject({
  message_id: MessageIdSchema,
  trace_id: TraceIdSchema,
  turn_id: TurnIdSchema,
  parent_turn_id: TurnIdSchema.nullable(),
  type: EnvelopeTypeSchema,
  from: PartySchema,
  to: PartySchema,
  priority: PrioritySchema,
  /** UTC ISO 8601 with `Z` (`2025-06-18T10:24:00.000Z`). */
  created_at: z.iso.datetime(),
  payload: PayloadSchema,
  meta: EnvelopeMetaSchema,
  /** The person who did it (an addition, issue 32): who sent a message, approved, decided or stopped. */
  author: AuthorSchema.optional(),
});
/** One envelope. */
export type Envelope = z.infer<typeof EnvelopeSchema>;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
// Random bytes are drawn a few kilobytes at a time: one draw per id cost more than the rest of
// making an envelope. Each byte is used once.
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** Random lowercase hex of `bytes` bytes (at most the pool's), from Web Crypto so this module also runs in the browser. */
function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  let out = "";
  for (let i = 0; i < bytes; i++) out += HEX[pool[poolAt++]!]!;
  return out;
}

// 8 random bytes: the seed shows 8 hex digits, but 16 make collisions across a long-lived data
// folder (millions of envelopes) negligible.
/** A new `trace_<16 hex>` id. */
export function newTraceId(): string {
  return `trace_${randomHex(8)}`;
}

/** A new `turn_<16 hex>` id. */
export function newTurnId(): string {
  return `turn_${randomHex(8)}`;
}

/** A new `msg_<16 hex>` id. */
export function newMessageId(): string {
  return `msg_${randomHex(8)}`;
}

/**
 * The idempotency key of a side-effecting action, built as the seed prescribes from the trace,
 * the action and its target: the same action retried within one trace gets the same key.
 */
export function idempotencyKey(traceId: string, action: string, target: string | number): string {
  return `${traceId}:${action}:${target}`;
}

/** A `type` that only code may produce was requested by a model. */
export class CodeOnlyTypeError extends AstrionError {
  /** The refused envelope type. */
  readonly type: EnvelopeType;

  constructor(type: EnvelopeType) {
    super("forbidden", `A model may not produce a "${type}" envelope; only code may.`, { type });
    this.type = type;
  }
}

/**
 * Refuses a broadcast/event/control envelope unless code produced it. Call it wherever an
 * envelope's type could be influenced by model output.
 * @throws CodeOnlyTypeError when `producer` is "model" and `type` is code-only.
 */
export function assertCodeOnlyType(type: EnvelopeType, producer: Producer): void {
  if (producer !== "code" && CODE_ONLY_TYPES.has(type)) throw new CodeOnlyTypeError(type);
}

/** Options shared by the envelope builders. */
export interface EnvelopeOptions {
  /** Default "normal". */
  priority?: Priority;
  /** Delivery hints; default `{}`. */
  meta?: EnvelopeMeta;
  /** Creation time; default now. Tests pass a fixed date. */
  now?: Date;
  /** The person who did it; kept on the envelope when given. */
  author?: Author;
}

function build(fields: Omit<Envelope, "message_id" | "turn_id" | "priority" | "created_at" | "meta">, options: EnvelopeOptions): Envelope {
  return parseEnvelope({
    message_id: newMessageId(),
    turn_id: newTurnId(),
    priority: options.priority ?? "normal",
    created_at: (options.now ?? new Date()).toISOString(),
    meta: options.meta ?? {},
    ...(options.author ? { author: options.author } : {}),
    ...fields,
  });
}

/**
 * The envelope of a new user instruction: a `request` that starts a fresh trace and has no parent.
 * Everything this message causes must be built with {@link replyTo} or {@link follow} from it.
 */
export function startTrace(from: string, to: string, payload: Payload, options: EnvelopeOptions = {}): Envelope {
  return build({ trace_id: newTraceId(), parent_turn_id: null, type: "request", from, to, payload }, options);
}

/** Options of {@link replyTo}. */
export interface ReplyOptions extends EnvelopeOptions {
  /** Default: the request's `to` (the party that was asked answers). */
  from?: string;
  /** Default: the request's `from`. */
  to?: string;
}

/**
 * A `reply` to `request`: same trace, `parent_turn_id` = the request's `turn_id`, and by default
 * addressed back to whoever asked.
 */
export function replyTo(request: Envelope, payload: Payload, options: ReplyOptions = {}): Envelope {
  return build(
    {
      trace_id: request.trace_id,
      parent_turn_id: request.turn_id,
      type: "reply",
      from: options.from ?? request.to,
      to: options.to ?? request.from,
      payload,
    },
    options,
  );
}

/** What {@link follow} needs besides the cause. */
export interface FollowInit extends EnvelopeOptions {
  type: EnvelopeType;
  from: string;
  to: string;
  payload: Payload;
  /** Who decided this envelope exists; code-only types are refused for "model". */
  producer: Producer;
}

/**
 * An envelope caused by `cause` (a delegation, a relay, a status event…): same trace, its parent
 * is the cause's turn. `producer` is required so no call site can forget the code-only rule.
 * @throws CodeOnlyTypeError when a model would produce a broadcast/event/control envelope.
 */
export function follow(cause: Envelope, init: FollowInit): Envelope {
  assertCodeOnlyType(init.type, init.producer);
  return build(
    {
      trace_id: cause.trace_id,
      parent_turn_id: cause.turn_id,
      type: init.type,
      from: init.from,
      to: init.to,
      payload: init.payload,
    },
    init,
  );
}

/**
 * Parses anything into an envelope.
 * @throws ValidationError listing the issues by path.
 */
export function parseEnvelope(value: unknown): Envelope {
  const parsed = EnvelopeSchema.safeParse(value);
  if (!parsed.success) throw new ValidationError("Invalid envelope", zodIssues(parsed.error));
  checkedEnvelopes.add(parsed.data);
  return parsed.data;
}

/** The envelopes {@link parseEnvelope} returned (every one built here is; envelopes are never changed in place). */
const checkedEnvelopes = new WeakSet<object>();

/** Whether `value` is an envelope {@link parseEnvelope} returned, so checked against the schema already. */
export function isCheckedEnvelope(value: unknown): value is Envelope {
  return typeof value === "object" && value !== null && checkedEnvelopes.has(value);
}

import "server-only";
/**
 * The forwarding port (lib/bus/forwarding.ts) over Redis pub/sub: each instance listens on a
 * channel of its own, named by its lease owner id (`astrion:fwd:{<owner>}`); a sender subscribes
 * a channel for this one request's reply (`astrion:fwd:reply:<uuid>`), then publishes the request
 * on the holder's channel and waits for the reply, at most its timeout. PUBLISH answers how many
 * listeners got the message, so a request to an instance that is gone is told at once
 * (`no_listener`) instead of after the timeout. Nothing is kept in Redis: a request nobody heard
 * is lost, and the sender decides what then (lib/runtime/run-commands.ts). Two connections: one
 * for PUBLISH, one subscribed (Redis allows nothing else on it).
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { CommandForwarder, ForwardHandler, ForwardOutcome, ForwardReply, ForwardRequest } from "@/lib/bus/forwarding";
import { connectRedis, isReady } from "./connection";

/** Options of {@link createRedisForwarder}. */
export interface RedisForwarderOptions {
  url: string;
  /** This instance's lease owner id: requests addressed to it are served here. */
  self: string;
  /** Prefix of the channels (default `astrion:fwd:`). */
  prefix?: string;
  /** Where faults are told (default console.warn). */
  log?: (message: string) => void;
}

/** A request on the wire. */
interface WireRequest extends ForwardRequest {
  /** The reply channel. */
  r: string;
  /** The sender. */
  f: string;
  /** How long the sender waits (ms). */
  t: number;
}

/** The forwarding port over Redis; see the file's header. */
export class RedisForwarder implements CommandForwarder {
  readonly self: string;
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #prefix: string;
  readonly #log: (message: string) => void;
  /** Replies awaited, by reply channel. */
  readonly #waiting = new Map<string, (outcome: ForwardOutcome) => void>();
  #handler: ForwardHandler | null = null;
  #closed = false;

  constructor(options: RedisForwarderOptions) {
    this.self = options.self;
    this.#prefix = options.prefix ?? "astrion:fwd:";
    this.#log = options.log ?? ((message) => console.warn(message));
    this.#pub = connectRedis(options.url, "astrion-forward");
    // Resubscribed after a reconnect by ioredis itself: the served channel and any reply awaited.
    this.#sub = connectRedis(options.url, "astrion-forward-feed", { autoResubscribe: true });
    this.#sub.on("message", (channel: string, text: string) => this.#heard(channel, text));
  }

  /** The channel requests for `owner` are published on (a hash tag, so a cluster keeps it on one node). */
  #requestChannel(owner: string): string {
    return `${this.#prefix}{${owner}}`;
  }

  #heard(channel: string, text: string): void {
    const waiter = this.#waiting.get(channel);
    if (waiter) {
      const reply = parseJson(text) as ForwardReply | undefined;
      if (reply && typeof reply === "object" && typeof reply.ok === "boolean") waiter({ kind: "answered", reply });
      return;
    }
    if (channel !== this.#requestChannel(this.self) || !this.#handler) return;
    const request = parseJson(text) as WireRequest | undefined;
    if (!request || typeof request.r !== "string" || typeof request.conversation_id !== "string") {
      this.#log("[astrion] a forwarded command could not be read; it is dropped");
      return;
    }
    const arrived = Date.now();
    const ttl = Number.isFinite(request.t) ? request.t : 0;
    // Called here, in the order the channel delivered: the handler sees requests in arrival order.
    const answered = (reply: ForwardReply) => this.#pub.publish(request.r, JSON.stringify(reply)).catch((error: unknown) => this.#log(`[astrion] the answer to a forwarded command could not be sent: ${(error as Error).message}`));
    // A handler must not reject; one that does still answers (a bare 500), so its sender is not left waiting.
    void this.#handler({ conversation_id: request.conversation_id, command: request.command, from: String(request.f), expired: () => Date.now() - arrived > ttl }).then(answered, () =>
      answered({ ok: false, error: { code: "internal", message: "Something went wrong on the server; see its log." } }),
    );
  }

  async send(owner: string, request: ForwardRequest, timeoutMs: number): Promise<ForwardOutcome> {
    if (this.#closed || !isReady(this.#pub) || !isReady(this.#sub)) return { kind: "unanswered", reason: "unreachable" };
    const replyChannel = `${this.#prefix}reply:${randomUUID()}`;
    let settle!: (outcome: ForwardOutcome) => void;
    const outcome = new Promise<ForwardOutcome>((resolve) => (settle = resolve));
    this.#waiting.set(replyChannel, settle);
    const timer = setTimeout(() => settle({ kind: "unanswered", reason: "timeout" }), timeoutMs);
    try {
      await this.#sub.subscribe(replyChannel);
      const wire: WireRequest = { ...request, r: replyChannel, f: this.self, t: timeoutMs };
      const heard = await this.#pub.publish(this.#requestChannel(owner), JSON.stringify(wire));
      if (heard === 0) settle({ kind: "unanswered", reason: "no_listener" });
    } catch {
      settle({ kind: "unanswered", reason: "unreachable" });
    }
    try {
      return await outcome;
    } finally {
      clearTimeout(timer);
      this.#waiting.delete(replyChannel);
      if (isReady(this.#sub)) this.#sub.unsubscribe(replyChannel).catch(() => undefined);
    }
  }

  async serve(handler: ForwardHandler): Promise<() => void> {
    this.#handler = handler;
    // Before Redis is reachable the subscription is made by the reconnect (autoResubscribe needs a first SUBSCRIBE).
    await this.#subscribeServed();
    return () => {
      if (this.#handler !== handler) return;
      this.#handler = null;
      if (isReady(this.#sub)) this.#sub.unsubscribe(this.#requestChannel(this.self)).catch(() => undefined);
    };
  }

  async #subscribeServed(): Promise<void> {
    for (;;) {
      if (this.#closed || !this.#handler) return;
      try {
        await this.#sub.subscribe(this.#requestChannel(this.self));
        return;
      } catch {
        // Redis is away: try again when the connection is back (the first SUBSCRIBE must land once).
        await new Promise<void>((resolve) => this.#sub.once("ready", () => resolve()));
      }
    }
  }

  /** Resolves once both connections are up (tests). */
  async whenConnected(): Promise<void> {
    await Promise.all([this.#pub, this.#sub].map((redis) => (isReady(redis) ? undefined : new Promise<void>((resolve) => redis.once("ready", () => resolve())))));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#handler = null;
    for (const settle of this.#waiting.values()) settle({ kind: "unanswered", reason: "unreachable" });
    await Promise.allSettled([this.#pub.quit(), this.#sub.quit()]);
    this.#pub.disconnect();
    this.#sub.disconnect();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The forwarding port over the Redis at `url`, serving (once {@link RedisForwarder.serve} is called) as `self`. */
export function createRedisForwarder(options: RedisForwarderOptions): RedisForwarder {
  return new RedisForwarder(options);
}

import "server-only";
/**
 * The Redis bus's two connections: one for commands (the topic scripts, PUBLISH), one that
 * listens to the channels of the topics this process follows. It keeps the channels wanted,
 * subscribes them all again once both connections are back, and tells the bus when they are up
 * (after that resubscription was sent) and when either is lost.
 */
import type { Redis } from "ioredis";
import { connectRedis, isReady } from "./connection";
import { JOIN_SCRIPT, LEAVE_SCRIPT, PUBLISH_SCRIPT, topicKeys, type TopicKeys } from "./scripts";

type Script = (...args: Array<string | number>) => Promise<unknown>;

/** The scripts of ./scripts.ts, by the names they are defined under. */
export type ScriptName = "astrionPublish" | "astrionJoin" | "astrionLeave";

/** What the link tells the bus. */
export interface LinkEvents {
  /** A message on the channel of `topic`. */
  message(topic: string, text: string): void;
  /** Both connections are up (again), every wanted channel subscribed anew. */
  up(): void;
  /** A connection was lost. */
  down(): void;
}

/** The connections of one bus. */
export class RedisLink {
  readonly #cmd: Redis;
  readonly #sub: Redis;
  readonly #prefix: string;
  /** The channels wanted, each to its topic. */
  readonly #channels = new Map<string, string>();
  /** The last SUBSCRIBE sent for each channel. */
  readonly #subscribing = new Map<string, Promise<unknown>>();
  #closed = false;

  constructor(url: string, name: string, prefix: string, events: LinkEvents) {
    this.#prefix = prefix;
    this.#cmd = connectRedis(url, `astrion-bus-${name}`);
    this.#sub = connectRedis(url, `astrion-bus-feed-${name}`, { autoResubscribe: false });
    this.#cmd.defineCommand("astrionPublish", { numberOfKeys: 3, lua: PUBLISH_SCRIPT });
    this.#cmd.defineCommand("astrionJoin", { numberOfKeys: 3, lua: JOIN_SCRIPT });
    this.#cmd.defineCommand("astrionLeave", { numberOfKeys: 3, lua: LEAVE_SCRIPT });
    this.#sub.on("message", (channel: string, text: string) => {
      const topic = this.#channels.get(channel);
      if (topic) events.message(topic, text);
    });
    for (const redis of [this.#cmd, this.#sub]) {
      redis.on("ready", () => {
        if (!this.up) return;
        const channels = [...this.#channels.keys()];
        if (channels.length > 0) {
          const subscribed = this.#sub.subscribe(...channels).catch(() => undefined);
          for (const channel of channels) this.#subscribing.set(channel, subscribed);
        }
        events.up();
      });
      redis.on("close", () => {
        if (!this.#closed) events.down();
      });
    }
  }

  /** True when both connections can take commands now. */
  get up(): boolean {
    return !this.#closed && isReady(this.#cmd) && isReady(this.#sub);
  }

  /** The keys and channel of `topic`. */
  keys(topic: string): TopicKeys {
    return topicKeys(this.#prefix, topic);
  }

  /** Runs a topic script on `topic`'s keys. */
  script(name: ScriptName, topic: string, args: Array<string | number>): Promise<unknown> {
    const keys = this.keys(topic);
    const script = (this.#cmd as unknown as Record<string, Script>)[name]!;
    return script.call(this.#cmd, keys.meta, keys.stream, keys.holders, ...args);
  }

  /** PUBLISH on `topic`'s channel, when up; a message that does not go is dropped. */
  publish(topic: string, text: string): void {
    if (this.up) this.#cmd.publish(this.keys(topic).channel, text).catch(() => undefined);
  }

  /** Listens to `topic`'s channel (again after every reconnect) until {@link unwatch}. */
  watch(topic: string): void {
    const { channel } = this.keys(topic);
    this.#channels.set(channel, topic);
    if (isReady(this.#sub)) this.#subscribing.set(channel, this.#sub.subscribe(channel).catch(() => undefined));
  }

  unwatch(topic: string): void {
    const { channel } = this.keys(topic);
    this.#channels.delete(channel);
    this.#subscribing.delete(channel);
    if (isReady(this.#sub)) this.#sub.unsubscribe(channel).catch(() => undefined);
  }

  /** Settles once the last SUBSCRIBE of `topic`'s channel is answered. */
  subscribed(topic: string): Promise<unknown> {
    return this.#subscribing.get(this.keys(topic).channel) ?? Promise.resolve();
  }

  /** Resolves once both connections are up. */
  whenUp(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!this.up) return;
        this.#cmd.off("ready", check);
        this.#sub.off("ready", check);
        resolve();
      };
      this.#cmd.on("ready", check);
      this.#sub.on("ready", check);
      check();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([this.#cmd.quit(), this.#sub.quit()]);
    this.#cmd.disconnect();
    this.#sub.disconnect();
  }
}

import "server-only";
/**
 * Presence shared over Redis (issue 32; docs/redis.md): the store under lib/presence's rules, so
 * a person whose tab is served by instance A sees a person served by instance B. Nothing here is
 * ever written to disk by Astrion, and Redis holds nothing that cannot be rebuilt: after a flush
 * the open streams' next acknowledgment answers "unknown" and their pages register again.
 *
 * - `astrion:presence:{conv:<id>}:viewers`, a hash: viewer id → the entry's JSON (each entry
 *   carries its own expiry, read by the rules; the key's TTL, renewed on every write, clears a
 *   conversation every instance of which died);
 * - `astrion:presence:conversations`, a set: the conversations that may have viewers (the index's
 *   counts), emptied of a conversation when its hash is;
 * - channel `astrion:presence:{conv:<id>}`: "changed", so every instance's watchers read again;
 * - channel `astrion:presence:signed-out`: a person's id, removed: every instance closes their streams.
 */
import type { Redis } from "ioredis";
import { z } from "zod";
import { PresencePersonSchema, TypingTargetSchema } from "@/lib/contracts/presence";
import type { PresenceEntry, PresenceStore, StopWatching } from "@/lib/presence";
import { connectRedis } from "./connection";

const PREFIX = "astrion:presence:";

/** A conversation's hash outlives its last write by this much, then Redis drops it. */
const KEY_TTL_MS = 120_000;

const EntrySchema = z.object({
  viewer: z.string(),
  person: PresencePersonSchema,
  joinedAt: z.number(),
  drawer: z.number().int().positive().nullable(),
  typing: TypingTargetSchema.nullable(),
  typingUntil: z.number(),
  expiresAt: z.number(),
});

/** Overwrites a field only if it exists (a viewer that left or was swept stays gone). */
const REPLACE_SCRIPT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0`;

/** Drops a conversation from the set when its hash is gone (empty). */
const FORGET_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return 0`;

const viewersKey = (conversation: string) => `${PREFIX}{conv:${conversation}}:viewers`;
const channelOf = (conversation: string) => `${PREFIX}{conv:${conversation}}`;
const CONVERSATIONS_KEY = `${PREFIX}conversations`;
const SIGNED_OUT_CHANNEL = `${PREFIX}signed-out`;

function parseEntry(text: string): PresenceEntry | null {
  try {
    const parsed = EntrySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

type Script = (...args: Array<string | number>) => Promise<unknown>;

/** A presence store on Redis; `whenConnected` resolves once both connections are up (tests). */
export type RedisPresenceStore = PresenceStore & { whenConnected(): Promise<void> };

/** A {@link PresenceStore} on the Redis at `url` (two connections: commands, and the channels). */
export function redisPresenceStore({ url, name = String(process.pid) }: { url: string; name?: string }): RedisPresenceStore {
  const cmd: Redis = connectRedis(url, `astrion-presence-${name}`);
  // ioredis subscribes the channels again by itself after a reconnect; the rules' sweep reads
  // every watched conversation each second anyway, so an announcement missed meanwhile is caught.
  const sub: Redis = connectRedis(url, `astrion-presence-feed-${name}`);
  cmd.defineCommand("astrionPresenceReplace", { numberOfKeys: 1, lua: REPLACE_SCRIPT });
  cmd.defineCommand("astrionPresenceForget", { numberOfKeys: 2, lua: FORGET_SCRIPT });
  const script = (n: string) => (cmd as unknown as Record<string, Script>)[n]!.bind(cmd);
  const listeners = new Map<string, Set<() => void>>();
  const signOuts = new Set<(personId: string) => void>();
  sub.on("message", (channel: string, message: string) => {
    if (channel === SIGNED_OUT_CHANNEL) {
      for (const onSignOut of [...signOuts]) onSignOut(message);
      return;
    }
    for (const onChange of [...(listeners.get(channel) ?? [])]) onChange();
  });

  const ready = (redis: Redis) => (redis.status === "ready" ? Promise.resolve() : new Promise<void>((resolve) => redis.once("ready", () => resolve())));
  return {
    whenConnected: async () => void (await Promise.all([ready(cmd), ready(sub)])),
    async put(conversation, entry) {
      const key = viewersKey(conversation);
      await cmd.multi().hset(key, entry.viewer, JSON.stringify(entry)).pexpire(key, KEY_TTL_MS).sadd(CONVERSATIONS_KEY, conversation).exec();
    },
    async replace(conversation, entry) {
      return (await script("astrionPresenceReplace")(viewersKey(conversation), entry.viewer, JSON.stringify(entry), KEY_TTL_MS)) === 1;
    },
    async get(conversation, viewer) {
      const text = await cmd.hget(viewersKey(conversation), viewer);
      return text === null ? null : parseEntry(text);
    },
    async remove(conversation, viewers) {
      if (viewers.length > 0) await cmd.hdel(viewersKey(conversation), ...viewers);
    },
    async entries(conversation) {
      const all = await cmd.hgetall(viewersKey(conversation));
      return Object.values(all).flatMap((text) => parseEntry(text) ?? []);
    },
    async conversations() {
      return (await cmd.smembers(CONVERSATIONS_KEY)).sort();
    },
    async forget(conversation) {
      await script("astrionPresenceForget")(viewersKey(conversation), CONVERSATIONS_KEY, conversation);
    },
    async announce(conversation) {
      await cmd.publish(channelOf(conversation), "changed");
    },
    listen(conversation, onChange): StopWatching {
      const channel = channelOf(conversation);
      let set = listeners.get(channel);
      if (!set) {
        listeners.set(channel, (set = new Set()));
        sub.subscribe(channel).catch(() => undefined);
      }
      const own = () => onChange();
      set.add(own);
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        set.delete(own);
        if (set.size > 0 || listeners.get(channel) !== set) return;
        listeners.delete(channel);
        sub.unsubscribe(channel).catch(() => undefined);
      };
    },
    async announceSignOut(personId) {
      await cmd.publish(SIGNED_OUT_CHANNEL, personId);
    },
    listenSignOut(onSignOut): StopWatching {
      const own = (personId: string) => onSignOut(personId);
      if (signOuts.size === 0) sub.subscribe(SIGNED_OUT_CHANNEL).catch(() => undefined);
      signOuts.add(own);
      return () => {
        if (!signOuts.delete(own) || signOuts.size > 0) return;
        sub.unsubscribe(SIGNED_OUT_CHANNEL).catch(() => undefined);
      };
    },
    async close() {
      listeners.clear();
      signOuts.clear();
      cmd.disconnect();
      sub.disconnect();
    },
  };
}

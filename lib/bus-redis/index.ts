/**
 * Public face of what instances share through Redis (loaded only when `ASTRION_REDIS_URL` is
 * set; nothing else imports ioredis): the bus port over Redis streams and channels, and the
 * entry rate limit and sign-in throttle over Redis, the forwarding of commands to the
 * instance that holds a run, and presence's store. Server only. See docs/redis.md.
 */
import "server-only";

export { createRedisBus, RedisBus } from "./redis-bus";
export { createRedisLimits, type RedisLimits } from "./limits";
export { createRedisForwarder, RedisForwarder } from "./forwarder";
export { redisPresenceStore, type RedisPresenceStore } from "./presence-store";

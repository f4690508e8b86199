/**
 * One instance of the engine on PostgreSQL + Redis, in the test's process: the real Engine over a
 * PgEngineStorage of its own (its own pool and lease owner id), a RedisBus, a RedisForwarder named
 * by that owner, and the command path (RunCommands) serving it, as the composition root makes them
 * (lib/server/backend.ts, lib/server/app.ts); the model is a scripted one (./scripted-model.ts) the
 * instances share. Several of these on one database and one Redis are instances of one deployment
 * without a built server, so a test can pause one instance's forwarding or abandon it as a crash.
 */
import { conversationTopic } from "@/lib/bus";
import { createRedisBus, createRedisForwarder, type RedisBus, type RedisForwarder } from "@/lib/bus-redis";
import type { RuntimeEvent } from "@/lib/contracts/events";
import type { ChatModel } from "@/lib/models/types";
import { createPgStorage, createPool, type PgEngineStorage } from "@/lib/pg";
import type { RoleLibrary } from "@/lib/roles/library";
import { Engine, RunCommands, type RunCommandOptions } from "@/lib/runtime";
import { limitsFromEnv } from "@/lib/runtime/team/config";
import { builtInToolProviders } from "@/lib/runtime/tool-providers";
import { testEngineDeps } from "./engine-deps";

/** An instance: see the file's header. */
export interface ScaledInstance {
  readonly owner: string;
  readonly storage: PgEngineStorage;
  readonly bus: RedisBus;
  readonly forwarder: RedisForwarder;
  readonly engine: Engine;
  readonly commands: RunCommands;
  /** Stops serving forwarded commands (the instance stays up, its leases renewed: a holder that does not answer). */
  stopServing(): void;
  /** Follows a conversation as a viewer does (its run stays in memory here); the events it saw. */
  watch(convId: string): RuntimeEvent[];
  /** A clean stop: everything committed, leases released, connections closed. */
  close(): Promise<void>;
  /** A crash: nothing more committed or renewed, its forwarding gone; its leases expire on their own. */
  crash(): Promise<void>;
}

/** What the instances of one test share. */
export interface ScaledSetup {
  databaseUrl: string;
  redisUrl: string;
  roles: RoleLibrary;
  model: ChatModel;
  /** The engine's data folder (never created unless the run needs it). */
  dataRoot: string;
  leaseMs: number;
  forwarding?: RunCommandOptions;
}

/** Starts an instance named `owner`; see the file's header. */
export async function startScaledInstance(setup: ScaledSetup, owner: string): Promise<ScaledInstance> {
  const pool = createPool(setup.databaseUrl, { applicationName: owner, max: 4 });
  const storage = await createPgStorage({ pool, owner, leaseMs: setup.leaseMs, log: () => undefined });
  const bus = createRedisBus({ url: setup.redisUrl, log: () => undefined });
  const forwarder = createRedisForwarder({ url: setup.redisUrl, self: owner, log: () => undefined });
  await Promise.all([bus.whenConnected(), forwarder.whenConnected()]);
  const engine = new Engine({
    deps: testEngineDeps({ root: setup.dataRoot, storage, conversations: storage, roles: setup.roles, model: setup.model, bus }),
    limits: { ...limitsFromEnv({}), leaderBatchMs: 0 },
    tools: builtInToolProviders(),
  });
  const commands = new RunCommands(engine, forwarder, { log: () => undefined, ...setup.forwarding });
  const stop = await commands.serve();
  const unsubscribes: Array<() => void> = [];
  return {
    owner,
    storage,
    bus,
    forwarder,
    engine,
    commands,
    stopServing: stop,
    watch(convId) {
      const seen: RuntimeEvent[] = [];
      unsubscribes.push(bus.subscribe(conversationTopic(convId), ({ event }) => void seen.push(event)));
      return seen;
    },
    async close() {
      for (const u of unsubscribes.splice(0)) u();
      stop();
      await engine.closeAll();
      await storage.end();
      await Promise.allSettled([bus.close(), forwarder.close()]);
      await pool.end().catch(() => undefined);
    },
    async crash() {
      for (const u of unsubscribes.splice(0)) u();
      storage.abandon();
      await Promise.allSettled([bus.close(), forwarder.close()]);
      void pool.end().catch(() => undefined);
    },
  };
}

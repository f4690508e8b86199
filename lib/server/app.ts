import "server-only";
/**
 * The composition root: the server's one instance of everything stateful, built here and nowhere
 * else from explicit parts: the data root and its lock, the per-file write queues and the open
 * JSON Lines files, the protected folders and the workspace, the conversation store, the history
 * search, the role library, long-term memory, the bus, the MCP manager and the engine. Started
 * once per process, from instrumentation.ts at boot and lazily by the first route that needs it,
 * both through the server's core (lib/server/core.ts, one bundle loaded once in production); kept
 * by `processSingleton` (./singleton.ts) because under `next dev` Next loads this module in more
 * than one bundle of the same process. Every part that must exist once per process is made here and handed
 * down, so each bundle reaches the same ones through the app. Nothing below this module imports
 * it: the engine and the services are handed what they use.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { acquireDataRootLock, ConversationStore, FileQueues, type ConversationCatalog, JsonLineFiles, removeOrphanTempFiles, resolveDataRoot } from "@/lib/store";
import { RoleLibrary } from "@/lib/roles";
import { AgentTokens, deriveCapabilities, rateLimitConfigFromEnv, TokenBucketLimiter, type EntryLimiter } from "@/lib/governance";
import { ModelKeyStore, seedModelsFile } from "@/lib/models";
import { discoveryConfigFromEnv, LocalDiscovery } from "@/lib/model-settings";
import { ModelRegistry } from "@/lib/models/model-registry";
import { createOfflineModel } from "@/lib/offline-model";
import { ProtectedFolders, Workspace } from "@/lib/workspace";
import { startSearch, type SearchIndexer } from "@/lib/search";
import { MemoryService } from "@/lib/memory/service";
import type { Bus } from "@/lib/bus";
import type { Presence } from "@/lib/presence";
import { forgetProcessSingleton, processSingleton } from "./singleton";
import { GatewayLastErrors } from "@/lib/gateway";
import { signInThrottleConfigFromEnv, type SignInGuard } from "@/lib/security";
import { McpManager } from "@/lib/mcp";
import { knowledgeLimitsFromEnv } from "@/lib/knowledge/config";
import { KnowledgeService } from "@/lib/knowledge/service";
import { RequestClock } from "@/lib/shared-context/clock";
import { StreamSlots, streamLimitsFromEnv } from "@/lib/sse";
import { DistillState, Engine, limitsFromEnv, RunCommands } from "@/lib/runtime";
import { builtInToolProviders } from "@/lib/runtime/tool-providers";
import { backendConfigFromEnv, folderBackend, scaledBackend, type Backend } from "./backend";
import { People } from "@/lib/people";
import { ActivityLog } from "./activity";

export interface AstrionApp {
  root: string;
  /**
   * The per-file write queues every writer of the data folder shares (lib/store/atomic.ts): the
   * store, the role library, memory, the knowledge indexes, the workspace's `write_file`, the
   * data folder's shared-context files (./file-storage.ts), and the routes that write mcp.json
   * and models.json.
   */
  queues: FileQueues;
  /**
   * The JSON Lines files the process keeps open (lib/store/jsonl.ts): the store appends every
   * conversation's timeline, context reports and journal through them, and so does the
   * activity log.
   */
  lines: JsonLineFiles;
  /** The workspace tools and checks, bound to the protected folders and the write queues (lib/workspace/workspace.ts). */
  workspace: Workspace;
  /** Conversations as the routes and services see them (the file store today; lib/store/catalog.ts). */
  store: ConversationCatalog;
  roles: RoleLibrary;
  /** The history search index (lib/search). */
  search: SearchIndexer;
  /** Long-term memory (lib/memory/service.ts), its entries where the backend keeps them. */
  memory: MemoryService;
  /** Model keys → models (the offline model included) and the embedder. */
  models: ModelRegistry;
  /** API keys typed in Settings → Models (`model-keys.json`, mode 0600; lib/models/key-store.ts). */
  keys: ModelKeyStore;
  /** The model servers found on 127.0.0.1 (lib/model-settings/discovery.ts). */
  discovery: LocalDiscovery;
  /** The bus: runtime events for viewers and wake-ups of agents' loops. */
  bus: Bus;
  /** Who has each conversation open (lib/presence; the backend's: in process or over Redis). */
  presence: Presence;
  /** The data folder's MCP servers. */
  mcp: McpManager;
  /** The limit on new conversations and messages (`enforceRateLimit("entry", …)`). */
  entryLimiter: EntryLimiter;
  /** The gateway's last failed call per source. */
  gatewayErrors: GatewayLastErrors;
  /** Wrong sign-in guesses counted per client (token mode): in process, or shared over Redis (the backend's). */
  signInThrottle: SignInGuard;
  /** Knowledge retrieval over the project folders. */
  knowledge: KnowledgeService;
  /** The clock a person's shared-context requests are stamped with. */
  clock: RequestClock;
  /** Open SSE streams, capped per client and in total. */
  streams: StreamSlots;
  /** Where conversations, events and limits live (./backend.ts: the data folder, or PostgreSQL + Redis). */
  backend: Backend;
  /** The team runtime: every conversation's run (lib/runtime/engine.ts). */
  engine: Engine;
  /**
   * A person's commands to a run (a message, an answer, a Stop…; lib/runtime/run-ops.ts), run
   * here or on the instance holding the run's lease (lib/runtime/run-commands.ts).
   */
  commands: RunCommands;
  /** Stops serving other instances' commands (at shutdown). */
  stopServing: () => void;
  /**
   * The people of team mode (lib/people: sign-in, roles, invitations), opened when ASTRION_TOKEN
   * is set; null on an unconfigured localhost, where the person at the machine is the owner.
   */
  people: People | null;
  /** Who changed a role file, a setting or the people, and when (`activity.jsonl`, ./activity.ts). */
  activity: ActivityLog;
  startedAt: string;
  version: string;
}

/** The product's own role files, copied into an empty role library on first start. */
const REPO_AGENTS_DIR = path.join(process.cwd(), "agents");

/**
 * Builds an app over the data folder `root` (default: the environment's, `resolveDataRoot`),
 * taking its lock, with every part made fresh. The server builds one per process through
 * {@link getApp}; a test builds its own rather than reset anything.
 */
export async function startApp(root: string = resolveDataRoot()): Promise<AstrionApp> {
  // Read first, so a bad setting is told before anything is opened or locked.
  const backendConfig = backendConfigFromEnv();
  await fs.mkdir(root, { recursive: true });
  // On the data folder one server owns it; on PostgreSQL + Redis every instance mounts the same
  // one for the settings (roles, models and keys, MCP, gateway), each written atomically
  // and noticed by the others within 2 s (docs/postgresql.md, "Settings shared by the instances").
  if (backendConfig.kind === "folder") await acquireDataRootLock(root);
  const removed = await removeOrphanTempFiles(root);
  if (removed.length > 0) console.log(`[astrion] removed ${removed.length} unfinished temp file(s) left by an earlier crash`);
  const queues = new FileQueues();
  const lines = new JsonLineFiles();
  const protectedFolders = new ProtectedFolders();
  const workspace = new Workspace({ protectedFolders, queues });
  const checkProjectFolder = workspace.projectFolderCheckFor(root);
  const entryLimit = rateLimitConfigFromEnv();
  const signIn = signInThrottleConfigFromEnv();
  let backend: Backend;
  if (backendConfig.kind === "folder") {
    const files = new ConversationStore(root, { checkProjectFolder, queues, lines });
    await files.init();
    backend = folderBackend({ root, store: files, queues, entryLimiter: new TokenBucketLimiter(entryLimit), signIn });
  } else {
    backend = await scaledBackend(backendConfig, { checkProjectFolder, rateLimit: entryLimit, signIn });
    console.log("[astrion] conversations in PostgreSQL, events and limits on Redis");
  }
  const store = backend.catalog;
  // After the conversation index is loaded (the search reconciles against it), before the engine resumes.
  const search = await startSearch(root, store);
  // Astrion's own folders: no project folder may sit in them, none may hold the data folder, and
  // no workspace tool may see or touch them (lib/workspace/protected.ts); the store's check, the
  // engine and the knowledge walk all read this one registry. Of the program, what the running
  // server executes is protected (its build and installed packages); its sources are an ordinary
  // project, so Astrion's own checkout can be worked on.
  protectedFolders.protect({ kind: "data", path: root });
  protectedFolders.protect({ kind: "app", path: path.join(process.cwd(), ".next") });
  protectedFolders.protect({ kind: "app", path: path.join(process.cwd(), "node_modules") });
  const roles = new RoleLibrary(path.join(root, "agents"), { deriveCapabilities, queues });
  const seeded = await roles.seedFromRepo(REPO_AGENTS_DIR);
  if (seeded.length > 0) console.log(`[astrion] copied the product roles into ${path.join(root, "agents")}: ${seeded.join(", ")}`);
  await seedModelsFile(queues, root);
  // Loads in the background (an index rebuild may call the embedding model); every call waits for it.
  const keys = new ModelKeyStore(root, queues);
  const models = new ModelRegistry({ offline: createOfflineModel, keys });
  const discovery = new LocalDiscovery(discoveryConfigFromEnv());
  const memory = new MemoryService(root, { embedder: () => models.embedderFor(root), queues, entries: await backend.openMemoryEntries() });
  const pkg = JSON.parse(await fs.readFile(path.join(process.cwd(), "package.json"), "utf8")) as { version?: string };
  console.log(`[astrion] data folder ${root}`);
  const bus: Bus = backend.bus;
  const mcp = new McpManager();
  const gatewayErrors = new GatewayLastErrors();
  const clock = new RequestClock();
  const knowledge = new KnowledgeService(root, knowledgeLimitsFromEnv(process.env), { queues, workspace });
  const streams = new StreamSlots(streamLimitsFromEnv());
  const engine = new Engine({
    deps: { root, storage: backend.storage, conversations: backend.lifecycle, roles, models, memory, bus, mcp, tokens: new AgentTokens(), gatewayErrors, clock, knowledge, distill: new DistillState(root, queues), workspace },
    limits: limitsFromEnv(),
    tools: builtInToolProviders(),
  });
  const commands = new RunCommands(engine, backend.forwarder);
  // Other instances' commands for the runs held here; heard from now on (Redis away: once it is back).
  const serving = commands.serve();
  const stopServing = () => void serving.then((stop) => stop());
  // Team mode's people are opened only when the server is reachable with a token: in the data
  // folder, or in PostgreSQL on the scaled backend (every instance sees the same people and sessions).
  const people = process.env.ASTRION_TOKEN ? await People.over(await backend.openPeople()) : null;
  const activity = new ActivityLog(root, lines);
  return { root, queues, lines, workspace, store, roles, search, memory, models, keys, discovery, knowledge, bus, presence: backend.presence, mcp, gatewayErrors, clock, streams, people, activity, signInThrottle: backend.signInThrottle, entryLimiter: backend.entryLimiter, backend, engine, commands, stopServing, startedAt: new Date().toISOString(), version: pkg.version ?? "0.0.0" };
}

/**
 * A clean shutdown: every open conversation checkpointed and let go, the MCP servers stopped,
 * index.json and the search index written.
 */
export async function closeApp(app: AstrionApp): Promise<void> {
  // No more forwarded commands: an instance that asks meanwhile waits for the leases let go below.
  app.stopServing();
  await app.engine.closeAll();
  await app.store.flushIndex().catch((error: unknown) => console.error("[astrion] could not write conversations/index.json:", (error as Error).message));
  await app.search.close().catch((error: unknown) => console.error("[astrion] could not write the search index:", (error as Error).message));
  // People first: on PostgreSQL they use the backend's pool, which closing the backend ends.
  await app.people?.close().catch((error: unknown) => console.error("[astrion] could not close the people database:", (error as Error).message));
  await app.backend.close().catch((error: unknown) => console.error("[astrion] could not close the backend:", (error as Error).message));
}

/** The started app; the first call starts it (taking the data folder's lock). */
export function getApp(): Promise<AstrionApp> {
  return processSingleton("app", () => {
    const app = startApp();
    // A failed start is not kept, so the error is reported again rather than a stale promise.
    app.catch(() => forgetProcessSingleton("app", app));
    return app;
  });
}

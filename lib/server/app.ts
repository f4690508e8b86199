import "server-only";
/**
 * The server's one instance of everything stateful: the data root, its lock, the conversation
 * store, the role library and the model registry. Started once per process, from
 * instrumentation.ts at boot and lazily by the first route that needs it; kept on globalThis
 * because Next may load this module in more than one bundle of the same process.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { acquireDataRootLock, ConversationStore, removeOrphanTempFiles, resolveDataRoot } from "@/lib/store";
import { RoleLibrary } from "@/lib/roles";
import { deriveCapabilities } from "@/lib/governance";
import { seedModelsFile } from "@/lib/models";
import { projectFolderCheckFor, protectFolder } from "@/lib/workspace";
import { startSearch, type SearchIndexer } from "@/lib/search";
import { MemoryService } from "@/lib/memory/service";

export interface AstrionApp {
  root: string;
  store: ConversationStore;
  roles: RoleLibrary;
  /** The history search index (lib/search). */
  search: SearchIndexer;
  /** Long-term memory (lib/memory/service.ts). */
  memory: MemoryService;
  startedAt: string;
  version: string;
}

const APP_KEY = Symbol.for("astrion.app");

/** The product's own role files, copied into an empty role library on first start. */
export const REPO_AGENTS_DIR = path.join(process.cwd(), "agents");

async function start(): Promise<AstrionApp> {
  const root = resolveDataRoot();
  await fs.mkdir(root, { recursive: true });
  await acquireDataRootLock(root);
  const removed = await removeOrphanTempFiles(root);
  if (removed.length > 0) console.log(`[astrion] removed ${removed.length} unfinished temp file(s) left by an earlier crash`);
  const store = new ConversationStore(root, { checkProjectFolder: projectFolderCheckFor(root) });
  await store.init();
  // After the conversation index is loaded (the search reconciles against it), before the engine resumes.
  const search = await startSearch(root, store);
  // Astrion's own folders: no project folder may sit in them, none may hold the data folder, and
  // no workspace tool may see or touch them (lib/workspace/protected.ts). Of the program, what
  // the running server executes is protected (its build and installed packages); its sources
  // are an ordinary project, so Astrion's own checkout can be worked on.
  protectFolder({ kind: "data", path: root });
  protectFolder({ kind: "app", path: path.join(process.cwd(), ".next") });
  protectFolder({ kind: "app", path: path.join(process.cwd(), "node_modules") });
  const roles = new RoleLibrary(path.join(root, "agents"), { deriveCapabilities });
  const seeded = await roles.seedFromRepo(REPO_AGENTS_DIR);
  if (seeded.length > 0) console.log(`[astrion] copied the product roles into ${path.join(root, "agents")}: ${seeded.join(", ")}`);
  await seedModelsFile(root);
  // Loads in the background (an index rebuild may call the embedding model); every call waits for it.
  const memory = new MemoryService(root);
  const pkg = JSON.parse(await fs.readFile(path.join(process.cwd(), "package.json"), "utf8")) as { version?: string };
  console.log(`[astrion] data folder ${root}`);
  return { root, store, roles, search, memory, startedAt: new Date().toISOString(), version: pkg.version ?? "0.0.0" };
}

/** The started app; the first call starts it (taking the data folder's lock). */
export function getApp(): Promise<AstrionApp> {
  const g = globalThis as unknown as Record<symbol, Promise<AstrionApp> | undefined>;
  let app = g[APP_KEY];
  if (!app) {
    app = start();
    g[APP_KEY] = app;
    // A failed start is not cached, so the error is reported again rather than a stale promise.
    app.catch(() => {
      if (g[APP_KEY] === app) g[APP_KEY] = undefined;
    });
  }
  return app;
}

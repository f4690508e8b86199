/**
 * The conversation catalog's conformance suite (lib/store/catalog.ts `ConversationCatalog`): what
 * the routes and services rely on, stated as cases that use only the port and a harness, so the
 * file store and a PostgreSQL store pass the same suite unchanged. {@link describeConversationCatalog}
 * runs every case against a fresh harness of a factory.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "@/lib/contracts/errors";
import type { ConversationCatalog, StoreChange } from "@/lib/store";

/** A catalog under test over backing data of its own. */
interface CatalogHarness {
  readonly catalog: ConversationCatalog;
  /** Lets go of the catalog (every conversation it holds) and removes the backing data. */
  close(): Promise<void>;
}

/** Makes fresh harnesses. */
export interface CatalogFactory {
  create(): Promise<CatalogHarness>;
}

/** One statement of the catalog's contract. */
export interface CatalogCase {
  name: string;
  run(c: ConversationCatalog, project: string): Promise<void>;
}

const UNKNOWN = "conv_19990101_000000_001";

/** Whether `promise` rejects with an error of class `kind`. */
async function rejectsWith(promise: Promise<unknown>, kind: new (...args: never[]) => Error): Promise<Error> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error, `rejects with ${kind.name}`).toBeInstanceOf(kind);
  return error as Error;
}

/** Every case of the catalog contract. */
export const CATALOG_CASES: readonly CatalogCase[] = [
  {
    name: "create: the new conversation is active, idle, without agents, and the leader's messages are empty",
    async run(c, project) {
      const m = await c.create({ title: "First", project_path: project, model_key: "offline" });
      expect(m.id).toMatch(/^conv_\d{8}_\d{6}_\d{3}$/);
      expect(m).toMatchObject({ title: "First", status: "active", phase: "IDLE", agent_count: 0, agent_ids: [], model_key: "offline" });
      expect(await c.get(m.id)).toEqual(m);
      const leader = await c.readLeaderMessages(m.id);
      expect(leader).toMatchObject({ id: m.id, title: "First", messages: [] });
      expect(await c.listAgents(m.id)).toEqual({ agents: [], problems: [] });
    },
  },
  {
    name: "create: a refused project folder and a bad title reject with ValidationError, and nothing is listed",
    async run(c, project) {
      const refused = await rejectsWith(c.create({ title: "x", project_path: "relative/path", model_key: "offline" }), ValidationError);
      expect(JSON.stringify((refused as ValidationError).details)).toContain("not_absolute");
      await rejectsWith(c.create({ title: "x", project_path: path.join(project, "missing"), model_key: "offline" }), ValidationError);
      await rejectsWith(c.checkProjectFolder("relative/path"), ValidationError);
      expect(await c.checkProjectFolder(project)).toBe(await fs.realpath(project).catch(() => project));
      await rejectsWith(c.create({ title: "y".repeat(201), project_path: project, model_key: "offline" }), ValidationError);
      expect((await c.list({ status: "all" })).total).toBe(0);
    },
  },
  {
    name: "ids: a malformed id rejects with ValidationError, an unknown one with NotFoundError",
    async run(c) {
      await rejectsWith(c.get("not-an-id"), ValidationError);
      await rejectsWith(c.get(UNKNOWN), NotFoundError);
      await rejectsWith(c.readLeaderMessages(UNKNOWN), NotFoundError);
      await rejectsWith(c.update(UNKNOWN, { title: "x" }), NotFoundError);
    },
  },
  {
    name: "update: a patch and a mutator change the conversation, the list follows, and `id` cannot change",
    async run(c, project) {
      const m = await c.create({ title: "Before", project_path: project, model_key: "offline" });
      const renamed = await c.update(m.id, { title: "After" });
      expect(renamed.title).toBe("After");
      expect((await c.readLeaderMessages(m.id)).title).toBe("After");
      const archived = await c.update(m.id, (cur) => ({ ...cur, status: "archived" }));
      expect(archived.status).toBe("archived");
      expect((await c.get(m.id)).status).toBe("archived");
      await rejectsWith(c.update(m.id, (cur) => ({ ...cur, id: UNKNOWN })), ValidationError);
      await rejectsWith(c.update(m.id, { title: "" }), ValidationError);
      expect((await c.get(m.id)).title).toBe("After");
    },
  },
  {
    name: "update: changes of one conversation asked at once all land, in order",
    async run(c, project) {
      const m = await c.create({ title: "Counter", project_path: project, model_key: "offline" });
      await Promise.all(Array.from({ length: 10 }, (_, i) => c.update(m.id, (cur) => ({ ...cur, agent_ids: [...cur.agent_ids, i + 1] }))));
      expect((await c.get(m.id)).agent_ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    },
  },
  {
    name: "list: newest first, filtered by status and by title or folder, paged, with the total",
    async run(c, project) {
      const a = await c.create({ title: "Alpha review", project_path: project, model_key: "offline" });
      const b = await c.create({ title: "Beta", project_path: project, model_key: "offline" });
      const d = await c.create({ title: "Gamma", project_path: project, model_key: "offline" });
      await c.update(b.id, { status: "archived" });
      await c.update(a.id, { title: "Alpha REVIEW" });
      const active = await c.list();
      // newest first: by updated_at (the seed's timestamps have whole seconds), then by id
      const newestFirst = [...active.items].sort((x, y) => (x.updated_at === y.updated_at ? (x.id < y.id ? 1 : -1) : x.updated_at < y.updated_at ? 1 : -1));
      expect(active.items.map((i) => i.id)).toEqual(newestFirst.map((i) => i.id));
      expect(active.items.map((i) => i.id).sort()).toEqual([a.id, d.id].sort());
      expect(active.total).toBe(2);
      expect((await c.list({ status: "archived" })).items.map((i) => i.id)).toEqual([b.id]);
      expect((await c.list({ status: "all" })).total).toBe(3);
      expect((await c.list({ q: "alpha review" })).items.map((i) => i.id)).toEqual([a.id]);
      expect((await c.list({ q: path.basename(project).toUpperCase(), status: "all" })).total).toBe(3);
      const page = await c.list({ status: "all", offset: 1, limit: 1 });
      expect(page).toMatchObject({ offset: 1, limit: 1, total: 3 });
      expect(page.items).toHaveLength(1);
      const all = await c.list({ status: "all" });
      expect(page.items[0]?.id).toBe(all.items[1]?.id);
      expect(active.items.find((i) => i.id === a.id)).toMatchObject({ title: "Alpha REVIEW", status: "active", agent_count: 0 });
    },
  },
  {
    name: "remove: the conversation is gone from reads and from the list",
    async run(c, project) {
      const keep = await c.create({ title: "Keep", project_path: project, model_key: "offline" });
      const gone = await c.create({ title: "Gone", project_path: project, model_key: "offline" });
      await c.remove(gone.id);
      await rejectsWith(c.get(gone.id), NotFoundError);
      await rejectsWith(c.readLeaderMessages(gone.id), NotFoundError);
      expect((await c.list({ status: "all" })).items.map((i) => i.id)).toEqual([keep.id]);
    },
  },
  {
    name: "observe and version: a change is told to observers and moves the version; unsubscribed, nothing more is told",
    async run(c, project) {
      const m = await c.create({ title: "Watched", project_path: project, model_key: "offline" });
      const seen: StoreChange[] = [];
      const stop = c.observe((change) => seen.push(change));
      const before = c.version(m.id);
      await c.update(m.id, { title: "Watched again" });
      expect(c.version(m.id)).not.toBe(before);
      expect(seen.some((ch) => ch.type === "conversation" && ch.meta.id === m.id && ch.meta.title === "Watched again")).toBe(true);
      stop();
      const told = seen.length;
      await c.update(m.id, { title: "Unwatched" });
      expect(seen.length).toBe(told);
    },
  },
  {
    name: "snapshot and install: a conversation's seed folder installs as a copy under a new id with the same content",
    async run(c, project) {
      const m = await c.create({ title: "Original", project_path: project, model_key: "offline" });
      const files = await c.snapshotFolder(m.id, () => true, { bytes: 10_000_000 });
      expect([...files.keys()].sort()).toEqual(expect.arrayContaining(["messages.json", "metadata.json"]));
      const meta = JSON.parse(new TextDecoder().decode(files.get("metadata.json"))) as { id: string; title: string };
      expect(meta).toMatchObject({ id: m.id, title: "Original" });
      const rewrite = (id: string) => {
        const out = new Map<string, Uint8Array>();
        for (const [rel, bytes] of files) out.set(rel, new TextEncoder().encode(new TextDecoder().decode(bytes).replaceAll(m.id, id)));
        return out;
      };
      const copy = await c.installConversation(m.id, "new_id", rewrite);
      expect(copy.id).not.toBe(m.id);
      expect(copy.title).toBe("Original");
      expect((await c.readLeaderMessages(copy.id)).id).toBe(copy.id);
      expect((await c.list({ status: "all" })).total).toBe(2);
      await rejectsWith(c.installConversation(m.id, "create", rewrite), Error);
    },
  },
  {
    name: "health: problems and the index report answer, and a clean flush resolves",
    async run(c, project) {
      await c.create({ title: "Healthy", project_path: project, model_key: "offline" });
      expect(c.problems()).toEqual([]);
      expect(c.indexReport()).toMatchObject({ conversations: 1 });
      await c.flushIndex();
      expect(typeof c.openCount).toBe("number");
    },
  },
];

/** Runs one case against a fresh harness of `factory` (with a project folder of its own), then closes it. */
export async function runCatalogCase(factory: CatalogFactory, c: CatalogCase): Promise<void> {
  const h = await factory.create();
  const project = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-catalog-project-"));
  try {
    await c.run(h.catalog, project);
  } finally {
    await h.close();
    await fs.rm(project, { recursive: true, force: true });
  }
}

/** The catalog contract as a vitest suite, run against the catalogs `factory` makes (each case on a fresh one, with a project folder of its own). */
export function describeConversationCatalog(name: string, factory: CatalogFactory): void {
  describe(`ConversationCatalog conformance: ${name}`, () => {
    for (const c of CATALOG_CASES) it(c.name, () => runCatalogCase(factory, c));
  });
}

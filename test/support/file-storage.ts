/**
 * The file store as a conformance harness (test/conformance/storage-contract.ts): a temp data
 * folder with two conversations, held open by a ConversationStore as the engine holds the
 * conversations it runs, and the engine's view of it (`fileStorage`, lib/server/file-storage.ts).
 * A reopen is a clean stop and a new store over the same folder (what a restart does); a crash
 * lets go of the open conversations without a checkpoint (their step logs replay at the next
 * open) and abandons the store. Durability is held back by holding the step logs' `fdatasync`
 * (the file store's one point of durability, lib/store/step-log.ts) through a gate on Node's
 * FileHandle (see {@link DatasyncGate}); nothing in lib/store knows of it. Every
 * ConversationStore of the suite is made by {@link makeConversationStore}, the one place that
 * knows the store's constructor.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readTimeline, timelineFile } from "@/lib/protocol";
import { CONTEXT_FILE_NAME } from "@/lib/runtime/team/ports";
import { fileStorage } from "@/lib/server/file-storage";
import { FileQueues } from "@/lib/store/atomic";
import type { ConversationStore } from "@/lib/store";
import { newConversationStore } from "@/test/helpers/conversation-store";
import type { StorageFactory, StorageHarness } from "@/test/conformance/storage-contract";

/** A store over the data folder `root` (not yet initialized). */
/** The write queues the suite's shared-context files go through (one process's). */
const sharedContextQueues = new FileQueues();

function makeConversationStore(root: string): ConversationStore {
  return newConversationStore(root);
}

/**
 * Holds every `FileHandle.datasync()` of the process while a test holds durability: the step log
 * (the only caller of datasync in lib/store; atomic writes use `sync()`) commits a group with one
 * datasync and counts its records durable only after it, so while the gate is shut changes are
 * made, ordered and written, and none becomes durable. Installed on first use; open, it only
 * passes the call on.
 */
class DatasyncGate {
  #holds = 0;
  #waiting: Array<() => void> = [];
  #installed: Promise<void> | null = null;

  install(): Promise<void> {
    this.#installed ??= (async () => {
      const probe = await fs.open(os.devNull, "r");
      const proto = Object.getPrototypeOf(probe) as { datasync: (this: unknown) => Promise<void> };
      await probe.close();
      const original = proto.datasync;
      const whileHeld = async () => {
        while (this.#holds > 0) await new Promise<void>((resolve) => this.#waiting.push(resolve));
      };
      proto.datasync = async function (this: unknown) {
        await whileHeld();
        return original.call(this);
      };
    })();
    return this.#installed;
  }

  hold(): () => void {
    this.#holds += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds -= 1;
      if (this.#holds === 0) for (const wake of this.#waiting.splice(0)) wake();
    };
  }

  /** Lets every held datasync go (a reopen, a crash or a close would otherwise wait for it forever). */
  openAll(): void {
    this.#holds = 0;
    for (const wake of this.#waiting.splice(0)) wake();
  }
}

const gate = new DatasyncGate();

/** A booted store with every conversation of `ids` open (loaded, its step log replayed). */
async function bootedStore(root: string, ids: readonly string[]): Promise<ConversationStore> {
  const store = makeConversationStore(root);
  await store.init();
  for (const id of ids) await store.open(id);
  return store;
}

/** What the harnesses of one data folder share: the folder and the newest store over it. */
interface Backing {
  base: string;
  root: string;
  ids: readonly string[];
  store: ConversationStore;
  /** False once the store was abandoned by a crash (it is not closed again). */
  alive: boolean;
}

function harness(backing: Backing): StorageHarness {
  const store = backing.store;
  const storage = fileStorage(backing.root, store, sharedContextQueues);
  const convDir = (id: string) => path.join(backing.root, "conversations", id);
  const current = () => {
    if (backing.store !== store) throw new Error("this harness was reopened or crashed: use the one that returned");
  };
  return {
    storage,
    conversationIds: backing.ids,
    async reopen() {
      current();
      gate.openAll();
      await store.closeAll();
      await store.flushIndex();
      backing.store = await bootedStore(backing.root, backing.ids);
      return harness(backing);
    },
    async crash() {
      current();
      // Each open conversation's log is closed as a crash leaves it: no checkpoint; what it made
      // durable replays at the next open. The store itself is abandoned. A held commit is let go
      // first (the log's close waits for it): what it holds may be kept, as after a crash just
      // after a sync.
      gate.openAll();
      for (const id of backing.ids) await (await store.open(id)).detach();
      backing.alive = false;
      backing.store = await bootedStore(backing.root, backing.ids);
      backing.alive = true;
      return harness(backing);
    },
    async timeline(convId) {
      return (await readTimeline(timelineFile(convDir(convId)))).records;
    },
    async contextReports(convId) {
      const text = await fs.readFile(path.join(convDir(convId), CONTEXT_FILE_NAME), "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return "";
        throw error;
      });
      return text.split("\n").filter((line) => line !== "");
    },
    holdDurability: () => gate.hold(),
    async close() {
      gate.openAll();
      if (backing.alive) {
        await backing.store.closeAll();
        await backing.store.flushIndex();
      }
      // maxRetries: a background index.json write of an abandoned store may still be landing.
      await fs.rm(backing.base, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** Fresh file-store harnesses: a data folder each, with a `fast` and a `thinking` conversation. */
export const fileStorageFactory: StorageFactory = {
  canHoldDurability: true,
  async create() {
    await gate.install();
    const base = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-conformance-"));
    const root = path.join(base, "data");
    const project = path.join(base, "project");
    await fs.mkdir(project);
    const store = makeConversationStore(root);
    await store.init();
    const fast = await store.create({ title: "Fast", project_path: project, model_key: "model-a", run_mode: "fast" });
    const thinking = await store.create({ title: "Thinking", project_path: project, model_key: "model-b", run_mode: "thinking" });
    const ids = [fast.id, thinking.id];
    for (const id of ids) await store.open(id);
    return harness({ base, root, ids, store, alive: true });
  },
};

import "server-only";
/**
 * Where long-term memory's entries are kept (the truth; the search index is derived from them by
 * each instance): the port {@link MemoryEntriesStore} and its data-folder implementation, the
 * file `memory/entries.json` (./memory-files.ts, unchanged). On PostgreSQL + Redis the
 * composition root hands the service lib/pg's instead, shared by every instance. The service
 * (./service.ts) redacts and merges a change against the entries it holds, saves it here based
 * on the stamp it loaded, and applies it in memory only once saved; a save refused because another
 * writer moved the stamp on ({@link EntriesChangedError}) makes it load the entries again and
 * merge anew, so no writer loses another's entries.
 */
import type { FileQueues } from "@/lib/store";
import { brokenCopies, loadEntries, writeEntries } from "./memory-files";
import type { MemoryEntry } from "./schema";

/** The entries as a store holds them at one moment. */
interface EntriesSnapshot {
  /** In the order entries.json lists them (new entries last). */
  entries: MemoryEntry[];
  /** SHA-256 of the entries as entries.json holds (or would hold) them: what the saved search index is checked against. */
  sha256: string;
  /** Names this state of the store: moves on with every save, whoever makes it. */
  stamp: string;
}

/** What loading found. */
export type EntriesLoad =
  | ({ ok: true } & EntriesSnapshot)
  /** Broken: the reason, and where the broken file now is (null when it could not be moved, or there is no file). */
  | { ok: false; reason: string; keptAs: string | null };

/** One change of the entries: the whole set after it, and what it changed and removed. */
interface EntriesChange {
  entries: readonly MemoryEntry[];
  changed: readonly MemoryEntry[];
  removed: readonly string[];
}

/** A save based on a stamp another writer has moved on since: nothing was saved. */
export class EntriesChangedError extends Error {
  override readonly name = "EntriesChangedError";
}

/** The port of memory entries' persistence (see the file's header). */
export interface MemoryEntriesStore {
  /** What the entries are called in problems and errors (`memory/entries.json`). */
  readonly where: string;
  /** Every entry. A broken store is reported, never written over by a load. */
  load(): Promise<EntriesLoad>;
  /** The store's stamp now (cheap: asked at most about once a second, to see another instance's change). */
  stamp(): Promise<string>;
  /**
   * Saves `change` atomically (all of it or nothing), based on the state named `base`.
   * @throws EntriesChangedError when the store is no longer at `base`.
   */
  save(base: string, change: EntriesChange): Promise<{ sha256: string; stamp: string }>;
  /** Broken copies kept aside by earlier loads (names to report), if the store keeps any. */
  brokenCopies(): Promise<string[]>;
}

/**
 * The data folder's entries: `memory/entries.json`, written atomically in the seed's JSON style.
 * One server owns a data folder (its lock), so nothing else writes the file: the stamp is the
 * SHA-256 of the file this store last read or wrote, and a save never finds it moved.
 */
export function fileEntriesStore(root: string, queues: FileQueues): MemoryEntriesStore {
  let stamp = "";
  return {
    where: "memory/entries.json",
    async load() {
      const loaded = await loadEntries(root);
      if (!loaded.ok) return loaded;
      stamp = loaded.sha256;
      return { ...loaded, stamp };
    },
    stamp: async () => stamp,
    async save(_base, change) {
      const sha256 = await writeEntries(queues, root, change.entries);
      stamp = sha256;
      return { sha256, stamp };
    },
    brokenCopies: () => brokenCopies(root),
  };
}

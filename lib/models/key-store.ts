import "server-only";
/**
 * The key store: API keys a person typed in Settings → Models, kept in `<data folder>/model-keys.json`
 * (mode 0600, readable by the server's user only) and never in models.json, which names a stored key
 * by its id (`"api_key_ref": "key_…"`). Keys leave this module only towards the endpoint they are
 * for: no answer to the browser, no log line and no export carries them (the export copies
 * conversation folders only, lib/export). One instance per data folder, made by the composition root.
 *
 * Every model call of an entry with a stored key checks the file's identity (one synchronous `stat`,
 * as models.json's); a write of this process keeps the identity of what it wrote, so its own file is
 * never read back.
 */
import { randomBytes } from "node:crypto";
import { promises as fs, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { CorruptFileError } from "@/lib/contracts/errors";
import { readJsonFile, toPythonJsonBytes, writeFileAtomicUnlocked, type FileQueues } from "@/lib/store";
import { API_KEY_REF_PATTERN } from "./schema";

/** The key store's file name in the data folder. */
export const KEY_STORE_FILE = "model-keys.json";

/** `model-keys.json`: stored key id → the key. */
const KeyStoreFileSchema = z.object({
  version: z.literal(1),
  keys: z.record(z.string().regex(API_KEY_REF_PATTERN), z.string().min(1)),
});
type KeyStoreFile = z.infer<typeof KeyStoreFileSchema>;

/** Only the owner may read or write the file. */
const OWNER_ONLY = 0o600;

/** The identity of a file (device, inode, size, times in nanoseconds), or "missing". */
function stampOf(file: string): string {
  const st = statSync(file, { bigint: true, throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : "missing";
}

/** A fresh stored key id: `key_` and 24 hex digits. */
function newKeyRef(): string {
  return `key_${randomBytes(12).toString("hex")}`;
}

export class ModelKeyStore {
  readonly #file: string;
  readonly #queues: FileQueues;
  #known: { stamp: string; keys: ReadonlyMap<string, string> } | null = null;

  constructor(root: string, queues: FileQueues) {
    this.#file = path.resolve(root, KEY_STORE_FILE);
    this.#queues = queues;
  }

  /**
   * Reads the file again when it changed since the last read (a person may edit or remove it by
   * hand). A file looser than 0600 is tightened. A broken file is a CorruptFileError naming it.
   */
  async refresh(): Promise<void> {
    const stamp = stampOf(this.#file);
    if (this.#known?.stamp === stamp) return;
    if (stamp === "missing") {
      this.#known = { stamp, keys: new Map() };
      return;
    }
    let parsed: KeyStoreFile;
    try {
      parsed = await readJsonFile(this.#file, KeyStoreFileSchema);
    } catch (error) {
      // The parser's words may quote the file, and so a key: none of them is passed on.
      if (error instanceof CorruptFileError) throw new CorruptFileError(this.#file, "does not load as a key store (its text is not shown: it holds API keys)");
      throw error;
    }
    const st = await fs.stat(this.#file);
    if ((st.mode & 0o077) !== 0) await fs.chmod(this.#file, OWNER_ONLY).catch(() => undefined);
    this.#known = { stamp, keys: new Map(Object.entries(parsed.keys)) };
  }

  /** The stored key of `ref` as last read ({@link refresh} first); undefined when none is stored. */
  peek(ref: string): string | undefined {
    return this.#known?.keys.get(ref);
  }

  /** True when a key is stored under `ref` (the file read when it changed). */
  async has(ref: string): Promise<boolean> {
    await this.refresh();
    return this.peek(ref) !== undefined;
  }

  /** Stores `value` under `ref` (a fresh id when none is given) and returns the id. */
  async put(value: string, ref: string = newKeyRef()): Promise<string> {
    await this.#change((keys) => keys.set(ref, value));
    return ref;
  }

  /** Forgets the key of `ref` (nothing happens when none is stored). */
  async remove(ref: string): Promise<void> {
    await this.#change((keys) => keys.delete(ref));
  }

  /** Read-modify-write of the file under its queue, written atomically with mode 0600. */
  async #change(edit: (keys: Map<string, string>) => unknown): Promise<void> {
    await this.#queues.withFileLock(this.#file, async () => {
      // A broken file throws here and is not replaced: the keys in it would be lost.
      await this.refresh();
      const keys = new Map(this.#known?.keys ?? []);
      edit(keys);
      const next: KeyStoreFile = { version: 1, keys: Object.fromEntries(keys) };
      await writeFileAtomicUnlocked(this.#file, toPythonJsonBytes(KeyStoreFileSchema.parse(next)), { mode: OWNER_ONLY });
      this.#known = { stamp: stampOf(this.#file), keys };
    });
  }
}

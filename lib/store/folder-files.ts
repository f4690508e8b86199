import "server-only";
/**
 * A conversation folder's files as bytes in memory, and back: what an export reads and an import
 * writes. Only regular files are read (a symbolic link or device in the folder is skipped, never
 * followed); writing goes to a staging folder that the store then renames into place.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { AstrionError } from "@/lib/contracts/errors";
import { fsyncDir } from "./atomic";

/** Bytes still allowed to be read, shared by the folders of one export. */
export interface ReadBudget {
  bytes: number;
}

/**
 * Reads the regular files below `dir` whose path relative to it (`/`-separated) `accept` takes,
 * at most two levels of folders deep, each file once.
 * @throws AstrionError `payload_too_large` when they hold more than `budget.bytes` (which is spent).
 */
export async function readFolderFiles(dir: string, accept: (rel: string) => boolean, budget: ReadBudget): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  const walk = async (rel: string, depth: number): Promise<void> => {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory() && depth < 2) await walk(child, depth + 1);
      else if (entry.isFile() && accept(child)) {
        const data = await fs.readFile(path.join(dir, child));
        budget.bytes -= data.byteLength;
        if (budget.bytes < 0) throw new AstrionError("payload_too_large", "The conversations hold more data than one export may (see docs/export-import.md); export fewer at once.");
        out.set(child, data);
      }
    }
  };
  await walk("", 0);
  return out;
}

/**
 * Writes `files` (relative paths, already checked) below the new folder `dir`, each file synced,
 * then every folder, so a rename of `dir` afterwards publishes complete files.
 */
export async function writeFolderFiles(dir: string, files: Map<string, Uint8Array>): Promise<void> {
  await fs.mkdir(dir);
  const folders = new Set<string>([dir]);
  for (const [rel, data] of files) {
    const file = path.join(dir, ...rel.split("/"));
    const parent = path.dirname(file);
    if (!folders.has(parent)) {
      await fs.mkdir(parent, { recursive: true });
      for (let p = parent; p.startsWith(dir) && !folders.has(p); p = path.dirname(p)) folders.add(p);
    }
    const handle = await fs.open(file, "wx", 0o644);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  for (const folder of [...folders].sort((a, b) => b.length - a.length)) await fsyncDir(folder);
}

/**
 * Astrion's own folders, which no workspace tool may see or touch: the data folder (conversation
 * metadata, role files, models.json — everything the runtime trusts) and the folder the server
 * runs from (its code and the role files it seeds from). The server registers them once at start
 * ({@link ProtectedFolders.protect}); every path the workspace resolves is checked against them,
 * so a tool added later (commands, an MCP file server) gets the rule by going through resolve.ts.
 *
 * A folder is recognized by name (its real path, and anything below it) and by identity (device
 * and inode), so a bind mount of it, or a differently-cased name on a case-insensitive disk, is
 * recognized too. Not recognized: a bind mount of a folder *inside* a protected folder, and hard
 * links to its files (a path check cannot tell a hard link from an ordinary file).
 *
 * The registry is a {@link ProtectedFolders} instance: the composition root (lib/server/app.ts)
 * makes the server's one, registers the folders at boot and hands it down inside its workspace
 * (./workspace.ts), so every route bundle of the process checks against the same folders; a test
 * makes its own, empty until it protects something.
 *
 * The workspace's metadata calls (stat, lstat, realpath, here and in resolve.ts and
 * project-folder.ts) are synchronous. Each answers from the kernel's caches in a few microseconds
 * on a local disk, where the same call through the thread pool (`fs.promises`) costs about 55 µs
 * of CPU (a hand-off to a pool thread and back, on the 2-core bench machine), and every tool call
 * makes about a dozen of them. A folder on a network file system that stops answering stalls such
 * a call; through the pool it would hold one of its four threads instead, which every file write
 * of the server shares.
 */
import "server-only";
import { realpathSync, statSync, type BigIntStats } from "node:fs";
import path from "node:path";
import { isInsideRoot, type ProtectedFolder } from "./project-folder-rules";

/** A protected folder with its identity on disk. */
export interface ProtectedRoot extends ProtectedFolder {
  /** The path as given (before symlinks were resolved). */
  path: string;
  /** Device and inode of the folder; null when it did not exist when registered. */
  id: { dev: bigint; ino: bigint } | null;
}

/** A folder to protect, as given. */
export interface ProtectedInput {
  kind: ProtectedFolder["kind"];
  path: string;
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** `stat` with exact (bigint) device and inode numbers, or null when the path cannot be reached. */
export function statId(p: string): BigIntStats | null {
  try {
    return statSync(p, { bigint: true });
  } catch {
    return null;
  }
}

/**
 * The real path of `p`; for a path that does not exist (yet), the real path of its deepest
 * existing ancestor joined with the rest, so the data folder is protected before it is created.
 */
function realOrNearest(p: string): string {
  const absolute = path.resolve(p);
  const rest: string[] = [];
  for (let at = absolute; ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync.native(at), ...rest.reverse());
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      if (path.dirname(at) === at) return absolute;
      rest.push(path.basename(at));
    }
  }
}

/** Resolves a folder to protect: its real path and identity. */
function describeProtected(input: ProtectedInput): ProtectedRoot {
  const real = realOrNearest(input.path);
  const st = statId(real);
  return { kind: input.kind, path: path.resolve(input.path), real, id: st?.isDirectory() ? { dev: st.dev, ino: st.ino } : null };
}

/** The protected folders of one server: registered at start, then only read. */
export class ProtectedFolders {
  readonly #roots = new Map<string, ProtectedRoot>();

  /** Adds a folder to the protected ones (idempotent) and returns it resolved. */
  protect(input: ProtectedInput): ProtectedRoot {
    const root = describeProtected(input);
    this.#roots.set(`${root.kind}:${root.real}`, root);
    return root;
  }

  /** The registered protected folders. */
  list(): ProtectedRoot[] {
    return [...this.#roots.values()];
  }

  /**
   * The registered folders plus `extra`, without duplicates. An extra folder registered already
   * (same kind, same path as given: the store's data folder, registered at boot) is taken as it
   * was resolved then, as every registered folder is; any other is resolved now.
   */
  with(extra: readonly ProtectedInput[]): ProtectedRoot[] {
    const registered = this.#roots;
    const all = new Map(registered);
    for (const input of extra) {
      const given = path.resolve(input.path);
      if ([...registered.values()].some((r) => r.kind === input.kind && r.path === given)) continue;
      const root = describeProtected(input);
      all.set(`${root.kind}:${root.real}`, root);
    }
    return [...all.values()];
  }
}

/**
 * The protected folder of `roots` that the real path `real` is, or lies in, judged by name; or
 * that it is, judged by identity when `st` (its stat) is given.
 */
export function protectedMatch(real: string, st: { dev: bigint; ino: bigint } | null | undefined, roots: readonly ProtectedRoot[]): ProtectedRoot | undefined {
  return roots.find((r) => isInsideRoot(r.real, real) || (st && r.id && r.id.dev === st.dev && r.id.ino === st.ino));
}

/**
 * The protected folder of `roots` that the real path `real` lies in, checking the folder and each
 * of its ancestors by name and by identity (so a project folder reached through a bind mount of a
 * protected folder, or of a folder above one, is caught).
 */
export function protectedAncestor(real: string, roots: readonly ProtectedRoot[]): ProtectedRoot | undefined {
  if (roots.length === 0) return undefined;
  for (let at = real; ; at = path.dirname(at)) {
    const hit = protectedMatch(at, statId(at), roots);
    if (hit) return hit;
    if (path.dirname(at) === at) return undefined;
  }
}

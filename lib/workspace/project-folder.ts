/**
 * The check of a conversation's project folder against the rules of project-folder-rules.ts, on
 * the real disk: symlinks are resolved (`/proc/self/root`, `/tmp/link-to-root`, `//`, `/./` and
 * trailing slashes all become the folder they name), and every other name of the folder found by
 * device and inode (a bind mount, a differently-cased name) is judged too, against the server's
 * protected folders (a {@link ProtectedFolders}, given by the caller). The store runs it when a
 * conversation is created (its creator gives it {@link projectFolderCheckFor}); the runtime when
 * a run starts or resumes and before every tool call.
 */
import "server-only";
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ProjectFolderIssue } from "@/lib/contracts/http";
import { ValidationError } from "@/lib/contracts/errors";
import type { ProjectFolderRefusal } from "@/lib/contracts/project-folder";
import { projectFolderMessage, projectFolderRefusal, SYSTEM_FOLDERS, SYSTEM_TREES } from "./project-folder-rules";
import { statId, type ProtectedFolders, type ProtectedInput, type ProtectedRoot } from "./protected";
import { MAX_PATH_LENGTH } from "./resolve";

/** A folder that may be a project folder. */
interface ProjectFolderAccepted {
  ok: true;
  /** The path as the person gave it, made absolute and normalized (what metadata.json keeps). */
  path: string;
  /** Its real path. */
  real: string;
}

/** A folder that may not. */
export interface ProjectFolderRefused {
  ok: false;
  reason: ProjectFolderRefusal;
  /** Plain English: what is wrong and what to do. */
  message: string;
  /** The path as given (normalized when it could be). */
  path: string;
  /** The protected folder concerned, for `inside_*` / `contains_*`. */
  folder?: string;
}

/** What {@link checkProjectFolder} answers. */
export type ProjectFolderCheck = ProjectFolderAccepted | ProjectFolderRefused;

/** Identities of the system folders that exist here (they do not change while the server runs). */
let systemIds: Array<{ p: string; dev: bigint; ino: bigint }> | null = null;

function knownSystemFolders(): Array<{ p: string; dev: bigint; ino: bigint }> {
  if (systemIds) return systemIds;
  const out: Array<{ p: string; dev: bigint; ino: bigint }> = [];
  for (const p of ["/", "/root", ...SYSTEM_TREES, ...SYSTEM_FOLDERS]) {
    const st = statId(p);
    if (st?.isDirectory()) out.push({ p, dev: st.dev, ino: st.ino });
  }
  systemIds = out;
  return out;
}

let homeReal: { real: string | null } | null = null;

function realHome(): string | null {
  if (!homeReal) {
    try {
      homeReal = { real: realpathSync.native(os.homedir()) };
    } catch {
      homeReal = { real: null };
    }
  }
  return homeReal.real;
}

/**
 * Every name the folder at `real` is known by: `real` itself; the name of a known folder (system
 * folder, protected folder) that it, or one of its ancestors, is the same folder as; and an
 * ancestor of a protected folder that it is the same folder as.
 */
function namesOf(real: string, self: { dev: bigint; ino: bigint }, roots: readonly ProtectedRoot[]): string[] {
  // Every tool call checks the folder again; the walk below stats every ancestor of the folder and
  // of each protected folder. Its answer depends only on those folders' real paths and identities,
  // so it is kept per (real path, device and inode of the folder and of each protected folder):
  // a folder replaced, moved, mounted over or linked elsewhere has another key and is walked again.
  const key = `${real}\0${self.dev}:${self.ino}\0${roots.map((r) => `${r.kind}:${r.real}:${r.id ? `${r.id.dev}:${r.id.ino}` : "-"}`).join("\0")}`;
  const known = walkedNames.get(key);
  if (known) return known;
  const names = walkNames(real, roots);
  if (walkedNames.size >= MAX_WALKED) walkedNames.clear();
  walkedNames.set(key, names);
  return names;
}

/** Walked names by key (see {@link namesOf}); bounded, cleared when full. */
const walkedNames = new Map<string, string[]>();
const MAX_WALKED = 256;

function walkNames(real: string, roots: readonly ProtectedRoot[]): string[] {
  const names = new Set([real]);
  const known = [...knownSystemFolders(), ...roots.flatMap((r) => (r.id ? [{ p: r.real, ...r.id }] : []))];
  for (let at = real; ; at = path.dirname(at)) {
    const st = statId(at);
    if (st) {
      for (const k of known) {
        if (k.dev === st.dev && k.ino === st.ino && k.p !== at) names.add(path.join(k.p, path.relative(at, real)));
      }
    }
    if (path.dirname(at) === at) break;
  }
  const self = statId(real);
  if (self) {
    for (const r of roots) {
      for (let at = r.real; ; at = path.dirname(at)) {
        const st = statId(at);
        if (st && st.dev === self.dev && st.ino === self.ino) names.add(at);
        if (path.dirname(at) === at) break;
      }
    }
  }
  return [...names];
}

function refused(reason: ProjectFolderRefusal, shown: string, folder?: string): ProjectFolderRefused {
  const verdict = folder === undefined ? { reason } : { reason, folder };
  return { ok: false, reason, message: projectFolderMessage(verdict, shown), path: shown, ...(folder === undefined ? {} : { folder }) };
}

/**
 * Checks a candidate project folder. The folders registered in `folders` (the data folder and
 * the app folders, at boot) are always protected; `extra` adds more (the store passes its own data
 * folder).
 */
export async function checkProjectFolder(folders: ProtectedFolders, value: unknown, extra: readonly ProtectedInput[] = []): Promise<ProjectFolderCheck> {
  if (typeof value !== "string" || value.trim() === "") return refused("required", "");
  const trimmed = value.trim();
  if (trimmed.includes("\0") || trimmed.length > MAX_PATH_LENGTH) return refused("invalid", trimmed.replace(/\0/g, "\\0").slice(0, 200));
  if (!path.isAbsolute(trimmed)) return refused("not_absolute", trimmed);
  const resolved = path.resolve(trimmed);
  let real: string;
  try {
    real = realpathSync.native(resolved);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return refused("not_found", resolved);
    if (code === "EACCES" || code === "EPERM") return refused("unreadable", resolved);
    return refused("invalid", resolved);
  }
  const st = statId(real);
  if (!st) return refused("unreadable", resolved);
  if (!st.isDirectory()) return refused("not_a_folder", resolved);
  const roots = folders.with(extra);
  const verdict = projectFolderRefusal({ names: namesOf(real, st, roots), home: realHome(), protectedFolders: roots });
  if (verdict) return refused(verdict.reason, resolved, verdict.folder);
  return { ok: true, path: resolved, real };
}

/**
 * {@link checkProjectFolder}, throwing for a refused folder.
 * @returns the path to keep in metadata.json (absolute, normalized, as the person wrote it).
 * @throws ValidationError with details `[{ path: "project_path", message, reason, folder? }]`.
 */
export async function assertProjectFolder(folders: ProtectedFolders, value: unknown, extra: readonly ProtectedInput[] = []): Promise<string> {
  const check = await checkProjectFolder(folders, value, extra);
  if (check.ok) return check.path;
  const issue: ProjectFolderIssue = { path: "project_path", message: check.message, reason: check.reason, ...(check.folder ? { folder: check.folder } : {}) };
  throw new ValidationError(`Invalid project folder: ${check.message}`, [issue]);
}

/**
 * The check a data folder's conversation store runs on a project folder (its `checkProjectFolder`
 * option, see lib/store/conversation-store.ts): {@link assertProjectFolder} with that data folder
 * protected as well.
 */
export function projectFolderCheckFor(folders: ProtectedFolders, dataRoot: string): (value: unknown) => Promise<string> {
  const root = path.resolve(dataRoot);
  return (value) => assertProjectFolder(folders, value, [{ kind: "data", path: root }]);
}

/** A run's project folder refused because metadata.json no longer names the folder the run started with. */
export interface ProjectFolderChanged {
  ok: false;
  reason: "project_changed";
  message: string;
  /** The folder the run started with (the one its agents' tokens carry). */
  path: string;
  /** What metadata.json names now. */
  recorded: string;
}

/**
 * The check a running conversation makes before it starts, resumes, or runs any tool: the folder
 * rules ({@link checkProjectFolder}) and, once the run has started with a folder (`established`),
 * that metadata.json (`recorded`) still names that folder. A run's privileges never follow a
 * re-read file: a changed metadata.json stops the tools instead of moving them.
 */
export async function confirmProjectFolder(
  folders: ProtectedFolders,
  recorded: unknown,
  established: string | null,
  extra: readonly ProtectedInput[] = [],
): Promise<ProjectFolderCheck | ProjectFolderChanged> {
  if (established !== null) {
    const now = typeof recorded === "string" && path.isAbsolute(recorded.trim()) ? path.resolve(recorded.trim()) : String(recorded);
    if (now !== path.resolve(established)) {
      return {
        ok: false,
        reason: "project_changed",
        path: path.resolve(established),
        recorded: now,
        message: `this conversation's metadata.json names the project folder ${JSON.stringify(now)}, but its agents were given ${path.resolve(established)}; the file was changed while the conversation was open. Tools stay refused until the file names ${path.resolve(established)} again.`,
      };
    }
  }
  return checkProjectFolder(folders, established ?? recorded, extra);
}

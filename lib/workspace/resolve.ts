/**
 * Confinement of the workspace tools to a conversation's project folder (SPEC §3). This is the
 * safety-critical part: a path comes from a model, which may be confused or steered by hostile
 * file contents, so every path is refused unless it provably stays inside the project.
 *
 * Two layers:
 * 1. The requested text is checked before touching the disk ({@link checkRequestedPath}):
 *    `..`, absolute paths, `~`, percent-encoded dots/slashes (at any encoding depth),
 *    backslashes and NUL are refused outright rather than "cleaned", because a path that needs
 *    cleaning is a path whose meaning differs between layers.
 * 2. The path is walked one segment at a time from the project root's real path. Every symlink
 *    met on the way is resolved and must land inside the real root; a dangling symlink is refused
 *    (what it would create cannot be checked); the first segment that does not exist ends the
 *    walk, so a file not yet created is judged by its deepest existing ancestor's real path.
 *
 * 3. Astrion's own folders (the data folder, the folder it runs from: protected.ts) are refused
 *    at any depth and through any link, by name and by device/inode, even when the project folder
 *    contains one (the project-folder check refuses that, but the data folder may have moved since,
 *    or been bind-mounted in): what the runtime trusts is never readable or writable by an agent.
 *
 * Containment is `real === root || real.startsWith(root + sep)`, so `/proj-evil` is never inside
 * `/proj`. A symlink swapped in between this check and the tool's own open (a race with another
 * local process) is outside what a path check can prevent; the tools narrow it further by
 * refusing to follow a symlink at the final open (O_NOFOLLOW). Hard links cannot be told apart
 * from ordinary files by path.
 *
 * 4. Writes may not make or change a git repository: nothing inside `.git`, no file named `HEAD`
 *    or `commondir` (with `objects/` and `refs/` beside it, either makes a folder a repository
 *    git would use, configuration and fsmonitor included), nothing inside a folder that already is
 *    one (a bare repository in the project).
 *
 * The walk's stat, lstat and realpath calls are synchronous: protected.ts says why.
 */
import "server-only";
import { lstatSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { AstrionError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { isInsideRoot } from "./project-folder-rules";
import { protectedAncestor, protectedMatch, type ProtectedFolders } from "./protected";

export { isInsideRoot };

/** Why a path was refused. Stable codes: tests, the UI and the audit log key on them. */
export type WorkspaceRefusal =
  | "invalid_path"
  | "nul_byte"
  | "backslash"
  | "encoded_path"
  | "home_path"
  | "absolute_path"
  | "parent_segment"
  | "outside_project"
  | "symlink_escape"
  | "dangling_symlink"
  | "protected_path"
  | "app_data";

const REFUSAL_TEXT: Record<WorkspaceRefusal, string> = {
  invalid_path: "is not a usable path",
  nul_byte: "contains a NUL character",
  backslash: "contains a backslash; use / between folders",
  encoded_path: "contains a percent-encoded dot, slash, backslash or NUL",
  home_path: "starts with ~; paths are relative to the project folder",
  absolute_path: "is absolute; paths are relative to the project folder",
  parent_segment: 'contains a ".." segment',
  outside_project: "is outside the project folder",
  symlink_escape: "goes through a symbolic link that points outside the project folder",
  dangling_symlink: "goes through a symbolic link whose target does not exist",
  protected_path: "is inside .git or a git repository, or would make a folder one (HEAD, commondir), which the workspace tools may not change",
  app_data: "is part of Astrion's own files (its data folder or the folder it runs from), which the workspace tools may not see or change",
};

/** A path a workspace tool refused. Answered as 403; `reason` says why. */
export class WorkspaceError extends AstrionError {
  readonly reason: WorkspaceRefusal;

  constructor(reason: WorkspaceRefusal, requestedPath: string) {
    // The message goes back to the model as a tool error, so it names the path as the model
    // wrote it and never reveals where an escaping symlink points.
    const shown = JSON.stringify(requestedPath.length > 200 ? `${requestedPath.slice(0, 200)}…` : requestedPath);
    super("forbidden", `Path ${shown} ${REFUSAL_TEXT[reason]}.`, { reason, path: requestedPath });
    this.reason = reason;
  }
}

/** Longest path text accepted (Linux PATH_MAX). */
export const MAX_PATH_LENGTH = 4096;
/** Longest file or folder name (NAME_MAX of Linux, macOS and Windows file systems), in UTF-8 bytes. */
const MAX_NAME_BYTES = 255;

/**
 * `%2e` `.`, `%2f` `/`, `%5c` `\`, `%00` NUL, the overlong UTF-8 forms `%c0`/`%c1`, each also
 * encoded again (`%252e`, `%25252e`…). A layer that decodes once more would turn them into a
 * traversal, so they are refused whether or not anything here would decode them.
 */
const ENCODED_SEPARATOR = /%(?:25)*(?:2e|2f|5c|00|c0|c1)/i;

/**
 * Checks the text of a requested path and returns its segments (without `.` and empty ones;
 * none for the project root itself: `""`, `.` or `./`). No I/O.
 * @throws WorkspaceError naming the first rule the path breaks.
 */
export function checkRequestedPath(requestedPath: unknown): string[] {
  if (typeof requestedPath !== "string" || requestedPath.length > MAX_PATH_LENGTH) {
    throw new WorkspaceError("invalid_path", String(requestedPath).slice(0, 200));
  }
  const p = requestedPath;
  if (p.includes("\0")) throw new WorkspaceError("nul_byte", p);
  if (ENCODED_SEPARATOR.test(p)) throw new WorkspaceError("encoded_path", p);
  if (p.includes("\\")) throw new WorkspaceError("backslash", p);
  if (p.startsWith("~")) throw new WorkspaceError("home_path", p);
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) throw new WorkspaceError("absolute_path", p);
  const segments = p.split("/").filter((s) => s !== "" && s !== ".");
  // No file system has longer names; asking it anyway fails with ENAMETOOLONG, which is not a
  // refusal the model could act on (and used to crash the agent's loop).
  if (segments.some((s) => Buffer.byteLength(s) > MAX_NAME_BYTES)) {
    throw new ValidationError(`A file or folder name in ${JSON.stringify(p.slice(0, 80))}… is longer than ${MAX_NAME_BYTES} bytes.`);
  }
  // NFKC catches fullwidth dots (．．), which some layers normalize to "..".
  if (segments.some((s) => s === ".." || s.normalize("NFKC") === "..")) throw new WorkspaceError("parent_segment", p);
  return segments;
}

/**
 * The real path of the project folder.
 * @throws NotFoundError when it does not exist or is not a folder.
 */
async function projectRealRoot(projectRoot: string): Promise<string> {
  if (typeof projectRoot !== "string" || !path.isAbsolute(projectRoot)) {
    throw new NotFoundError("The conversation's project folder is not set to an absolute path.", { projectRoot });
  }
  let real: string;
  try {
    real = realpathSync.native(projectRoot);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new NotFoundError(`The project folder ${projectRoot} does not exist.`, { projectRoot });
    }
    throw error;
  }
  if (!statSync(real).isDirectory()) {
    throw new NotFoundError(`The project folder ${projectRoot} is not a folder.`, { projectRoot });
  }
  return real;
}

/** Options of {@link resolveInProject}. */
export interface ResolveOptions {
  /** The path will be written: `.git` folders are refused too. Default false. */
  forWrite?: boolean;
}

/** The outcome of resolving a path inside a project. */
export interface ResolvedPath {
  /** Real path of the project root. */
  root: string;
  /** Absolute real path of the target (for a missing target: its deepest existing ancestor's real path + the rest). */
  absolute: string;
  /** The target relative to the root, with `/` separators; `.` for the root itself. */
  relative: string;
  /** Whether the target exists. */
  exists: boolean;
}

function isNotThere(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Project-relative form of an absolute path known to be inside `root`. */
export function toRelative(root: string, absolute: string): string {
  const rel = path.relative(root, absolute);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

/**
 * Resolves `requestedPath` inside the project and returns where it really is; see the module
 * comment for the rules (rule 3 checks `folders`, the server's protected folders).
 * @throws WorkspaceError when the path could leave the project (or, for writes, enters `.git`).
 * @throws NotFoundError when the project folder itself is missing.
 */
export async function resolveProjectPath(
  folders: ProtectedFolders,
  projectRoot: string,
  requestedPath: string,
  options: ResolveOptions = {},
): Promise<ResolvedPath> {
  const segments = checkRequestedPath(requestedPath);
  // Case-insensitive: on macOS and Windows ".GIT" is the same folder.
  if (options.forWrite && segments.some((s) => s.toLowerCase() === ".git")) {
    throw new WorkspaceError("protected_path", requestedPath);
  }
  const root = await projectRealRoot(projectRoot);
  const roots = folders.list();
  if (protectedAncestor(root, roots)) throw new WorkspaceError("app_data", requestedPath);

  let current = root;
  let exists = true;
  for (let i = 0; i < segments.length; i++) {
    const next = path.join(current, segments[i] ?? "");
    let stat: import("node:fs").BigIntStats;
    try {
      stat = lstatSync(next, { bigint: true });
    } catch (error) {
      if (!isNotThere(error)) throw error;
      // Nothing below here exists, so the remaining names cannot be links: the real path is the
      // (checked) real path so far plus the rest.
      current = path.join(current, ...segments.slice(i));
      exists = false;
      break;
    }
    if (stat.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync.native(next);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") {
          throw new WorkspaceError("dangling_symlink", requestedPath);
        }
        throw error;
      }
      if (!isInsideRoot(root, real)) throw new WorkspaceError("symlink_escape", requestedPath);
      if (roots.length && protectedMatch(real, statSync(real, { bigint: true, throwIfNoEntry: false }) ?? null, roots)) {
        throw new WorkspaceError("app_data", requestedPath);
      }
      current = real;
    } else {
      if (protectedMatch(next, stat.isDirectory() ? stat : null, roots)) throw new WorkspaceError("app_data", requestedPath);
      current = next;
    }
  }
  if (protectedMatch(current, null, roots)) throw new WorkspaceError("app_data", requestedPath);
  // Defence in depth: the rules above already imply this.
  if (!isInsideRoot(root, current)) throw new WorkspaceError("outside_project", requestedPath);
  if (options.forWrite && toRelative(root, current).split("/").some((s) => s.toLowerCase() === ".git")) {
    throw new WorkspaceError("protected_path", requestedPath);
  }
  if (options.forWrite && makesOrChangesRepository(root, current)) throw new WorkspaceError("protected_path", requestedPath);
  return { root, absolute: current, relative: toRelative(root, current), exists };
}

/** Names that make a folder a git directory (with `objects/` and `refs/`); case-insensitive file systems included. */
const REPOSITORY_FILES = new Set(["head", "commondir"]);

/** Whether `dir` is a git directory: a `HEAD` file with `objects/` and `refs/` folders beside it. */
function isGitDirectory(dir: string): boolean {
  const kind = (name: string) => {
    try {
      return lstatSync(path.join(dir, name), { throwIfNoEntry: false });
    } catch {
      // ENOTDIR: `dir` is a file (the write is refused for that elsewhere); not a repository.
      return undefined;
    }
  };
  return kind("HEAD")?.isFile() === true && kind("objects")?.isDirectory() === true && kind("refs")?.isDirectory() === true;
}

/** Whether writing `target` (inside `root`) would make a git repository or change one (module comment, 4). */
function makesOrChangesRepository(root: string, target: string): boolean {
  if (target !== root && REPOSITORY_FILES.has(path.basename(target).toLowerCase())) return true;
  for (let dir = path.dirname(target); isInsideRoot(root, dir); dir = path.dirname(dir)) {
    if (isGitDirectory(dir)) return true;
    if (dir === root) break;
  }
  return false;
}

/**
 * The absolute real path of `requestedPath` inside the project at `projectRoot`.
 * @throws WorkspaceError (code "forbidden", with a `reason`) when the path could leave the project.
 * @throws NotFoundError when the project folder itself is missing.
 */
export async function resolveInProject(
  folders: ProtectedFolders,
  projectRoot: string,
  requestedPath: string,
  options: ResolveOptions = {},
): Promise<string> {
  return (await resolveProjectPath(folders, projectRoot, requestedPath, options)).absolute;
}

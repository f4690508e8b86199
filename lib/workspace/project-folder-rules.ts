/**
 * Which folders may be a conversation's project folder. Pure: no I/O, so the browser imports it
 * too (the form shows each refusal reason in plain words).
 *
 * A project folder is where agents read and, with `write`, change files. It may not be:
 * - the root of the file system (every file on the machine);
 * - a system folder ({@link SYSTEM_TREES}: neither the folder nor anything inside it;
 *   {@link SYSTEM_FOLDERS}: the folder itself, which holds other people's or programs' folders);
 * - Astrion's own data folder, a folder inside it, or a folder that contains it: the data folder
 *   holds what the runtime trusts (conversation metadata, role files with their permissions,
 *   models.json), so an agent that can write there can raise its own privileges;
 * - inside the program the server runs (its build and installed packages). A folder that holds
 *   them is allowed (Astrion's own checkout is a fine project): the tools hide them there.
 *
 * The rules compare absolute, normalized real paths. The I/O layer (project-folder.ts) resolves
 * symlinks first and adds "aliases": other names of the same folder found by device and inode
 * (a bind mount, a differently-cased name on a case-insensitive disk), so each rule here is a
 * plain string comparison and every name of a folder is judged.
 */
import path from "node:path";
import type { ProjectFolderRefusal } from "@/lib/contracts/project-folder";

/**
 * Folders of the operating system, its kernel views and its packages: neither the folder nor
 * anything inside it can be a project folder. POSIX (Linux, macOS) paths.
 */
export const SYSTEM_TREES: readonly string[] = [
  "/proc",
  "/sys",
  "/dev",
  "/boot",
  "/efi",
  "/etc",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/run",
  "/lost+found",
  "/snap",
  "/nix",
  "/usr/bin",
  "/usr/sbin",
  "/usr/lib",
  "/usr/lib32",
  "/usr/lib64",
  "/usr/libexec",
  "/usr/include",
  "/usr/share",
  "/var/lib",
  "/var/log",
  "/var/cache",
  "/var/spool",
  "/var/run",
  "/var/lock",
  "/var/mail",
  "/System",
  "/Library",
  "/private/etc",
  "/private/var/db",
];

/**
 * Folders that hold other people's or other programs' folders: the folder itself is refused (a
 * project there would expose all of them), a folder inside it is fine (`/var/www/site`,
 * `/opt/tools`, `/home/me/project`). The temp folder is deliberately absent: a project in a
 * folder inside it is common, and the temp folder itself is refused only when it contains the
 * data folder.
 */
export const SYSTEM_FOLDERS: readonly string[] = [
  "/usr",
  "/usr/local",
  "/var",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
  "/home",
  "/Users",
  "/Volumes",
  "/Applications",
  "/private",
  "/private/var",
];

/** `/root` is another user's home unless it is the person's own (Astrion running as root). */
const ROOT_HOME = "/root";

/** A folder whose contents the workspace tools may never reach. */
export interface ProtectedFolder {
  /** `data`: the data folder (ASTRION_HOME); `app`: the program the server runs (its build and installed packages). */
  kind: "data" | "app";
  /** Its real path. */
  real: string;
}

/** What the rules look at. */
export interface ProjectFolderFacts {
  /** Every known name of the candidate folder: its real path first, then aliases (see the module comment). */
  names: readonly string[];
  /** The person's home folder (real path), or null when unknown. */
  home: string | null;
  protectedFolders: readonly ProtectedFolder[];
}

/** A refusal and the protected folder it concerns, if any. */
export interface ProjectFolderVerdict {
  reason: ProjectFolderRefusal;
  /** The protected folder's path, for `inside_*` and `contains_*`. */
  folder?: string;
}

/**
 * True when `candidate` is `root` or inside it. Both absolute and normalized. Separator-aware:
 * `/data-evil` is not inside `/data`.
 */
export function isInsideRoot(root: string, candidate: string, sep: string = path.sep): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return candidate.startsWith(prefix);
}

/** True for the root of a file system (`/`, `C:\`). */
export function isFilesystemRoot(p: string): boolean {
  return path.parse(p).root === p;
}

function systemRefusal(name: string, home: string | null): boolean {
  // System names are compared without case: on macOS `/ETC` is `/etc`, and on Linux a folder
  // that differs from a system folder only in case is still no place for a project.
  const lower = name.toLowerCase();
  const trees = home === ROOT_HOME ? SYSTEM_TREES : [...SYSTEM_TREES, ROOT_HOME];
  if (trees.some((t) => isInsideRoot(t.toLowerCase(), lower, "/"))) return true;
  return SYSTEM_FOLDERS.some((f) => f.toLowerCase() === lower);
}

/**
 * Why a folder may not be a project folder, or null when it may. Checks every name in
 * `facts.names`; the first rule broken wins, in this order: file-system root, data folder, app
 * folder, system folder (the data folder's reason is the most useful one to show: it says how
 * to fix it).
 */
export function projectFolderRefusal(facts: ProjectFolderFacts): ProjectFolderVerdict | null {
  const names = facts.names.map((n) => path.normalize(n));
  if (names.some(isFilesystemRoot)) return { reason: "filesystem_root" };
  for (const kind of ["data", "app"] as const) {
    for (const folder of facts.protectedFolders.filter((f) => f.kind === kind)) {
      if (names.some((n) => isInsideRoot(folder.real, n))) return { reason: kind === "data" ? "inside_data_folder" : "inside_app_folder", folder: folder.real };
      // A project may hold Astrion's program files (its own checkout is a fine project): the
      // workspace tools never see or touch them there (protected.ts). Not so the data folder,
      // which holds what decides every agent's privileges.
      if (kind === "data" && names.some((n) => isInsideRoot(n, folder.real))) return { reason: "contains_data_folder", folder: folder.real };
    }
  }
  if (names.some((n) => systemRefusal(n, facts.home))) return { reason: "system_folder" };
  return null;
}

/**
 * The English explanation of a refusal, as the API and the runtime's notices give it. The UI
 * shows its own localized text for the same reason.
 */
export function projectFolderMessage(verdict: ProjectFolderVerdict, shownPath: string): string {
  const folder = verdict.folder ?? "";
  switch (verdict.reason) {
    case "required":
      return "a project folder is required";
    case "invalid":
      return "this is not a usable folder path";
    case "not_absolute":
      return "must be an absolute path";
    case "not_found":
      return `${shownPath} does not exist`;
    case "not_a_folder":
      return `${shownPath} is not a folder`;
    case "unreadable":
      return `${shownPath} cannot be opened (permission denied)`;
    case "filesystem_root":
      return `${shownPath} is the root of the whole file system: agents working there could read and change every file on this machine, Astrion's own settings included. Choose your project's own folder.`;
    case "system_folder":
      return `${shownPath} is a system folder: agents working there could read or change files the operating system or other programs rely on. Choose your project's own folder.`;
    case "inside_data_folder":
      return `This folder is inside Astrion's own data folder (${folder}), where conversations, role files and model settings are kept: agents working there could change their own permissions. Choose your project's own folder.`;
    case "contains_data_folder":
      return `This folder contains Astrion's own data folder (${folder}): agents working here could change Astrion's settings. Choose a folder inside it, or move the data folder with ASTRION_HOME.`;
    case "inside_app_folder":
      return `This folder is inside Astrion's running program (${folder}): agents working there could change the code the server runs. Choose your project's own folder.`;
  }
}

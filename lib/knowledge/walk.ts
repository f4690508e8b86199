import "server-only";
/**
 * The files of a project the knowledge index reads: every regular file under the project's real
 * root, in path order, except what `.gitignore` files exclude (each folder's own `.gitignore`
 * applies below it, with git's rules, through the `ignore` package eslint uses), the folders the
 * workspace tools never descend into (`node_modules`, `.git`, …), Astrion's own folders, and
 * symlinks (never followed, so nothing outside the project is read). Stops at `maxFiles` files
 * and counts what it left out. Files come before subfolders in each folder, both in name order.
 */
import { promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { protectedMatch, SKIPPED_DIRS, type ProtectedRoot } from "@/lib/workspace";

/** One file to index. */
export interface WalkedFile {
  /** Project-relative, `/` separators. */
  rel: string;
  size: number;
  mtimeMs: number;
}

/** What a walk found. */
export interface WalkResult {
  files: WalkedFile[];
  gitignored: number;
  /** Files left out because `maxFiles` was reached (a lower bound: the walk stops there). */
  overLimit: number;
}

interface Rules {
  /** The folder the `.gitignore` is in, project-relative with a trailing `/` ("" for the root). */
  base: string;
  ig: Ignore;
}

async function rulesOf(dir: string, base: string): Promise<Rules | null> {
  let text: string;
  try {
    const stat = await fs.lstat(path.join(dir, ".gitignore"));
    // A huge or odd .gitignore is not a rule file a person wrote.
    if (!stat.isFile() || stat.size > 1_000_000) return null;
    text = await fs.readFile(path.join(dir, ".gitignore"), "utf8");
  } catch {
    return null;
  }
  return { base, ig: ignore().add(text) };
}

function ignoredBy(rules: readonly Rules[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  // Deeper files override shallower ones (a negation below re-includes), as in git.
  for (const r of rules) {
    const sub = rel.slice(r.base.length) + (isDir ? "/" : "");
    const t = r.ig.test(sub);
    if (t.ignored) ignored = true;
    else if (t.unignored) ignored = false;
  }
  return ignored;
}

/** Walks the project at `root` (its real path), never into the protected folders `roots`; see the file comment. */
export async function walkProject(root: string, maxFiles: number, roots: readonly ProtectedRoot[]): Promise<WalkResult> {
  const out: WalkResult = { files: [], gitignored: 0, overLimit: 0 };
  async function visit(dir: string, relDir: string, inherited: readonly Rules[]): Promise<void> {
    let dirents: Dirent[];
    try {
      dirents = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const own = await rulesOf(dir, relDir);
    const rules = own ? [...inherited, own] : inherited;
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // The folder's files are stat'ed together (one round trip to the thread pool per folder, not per file).
    const files = dirents.filter((d) => d.isFile() && !ignoredBy(rules, relDir + d.name, false));
    out.gitignored += dirents.filter((d) => d.isFile()).length - files.length;
    const room = Math.max(0, maxFiles - out.files.length);
    out.overLimit += Math.max(0, files.length - room);
    const stats = await Promise.all(files.slice(0, room).map((d) => fs.lstat(path.join(dir, d.name)).catch(() => null)));
    files.slice(0, room).forEach((d, i) => {
      const stat = stats[i];
      if (stat?.isFile()) out.files.push({ rel: relDir + d.name, size: stat.size, mtimeMs: Math.floor(stat.mtimeMs) });
    });
    for (const d of dirents) {
      if (!d.isDirectory()) continue;
      const abs = path.join(dir, d.name);
      const rel = relDir + d.name;
      if (SKIPPED_DIRS.has(d.name) || (roots.length && protectedMatch(abs, null, roots))) continue;
      if (ignoredBy(rules, rel, true)) {
        out.gitignored++;
        continue;
      }
      await visit(abs, `${rel}/`, rules);
    }
  }
  await visit(root, "", []);
  return out;
}

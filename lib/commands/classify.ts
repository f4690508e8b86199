/**
 * What a simple command will execute, as far as an allow-list has to know. Pure.
 *
 * An allow-list matches a command's words; what those words run can depend on the project's
 * files: `npm test` runs whatever `package.json` says, `make` the Makefile, a test runner the
 * test files, `./x.sh` the file itself. So every simple command is one of:
 * - `read_only`: a program on a short list that reads files as data and never runs anything a
 *   file in the project names (`ls`, `cat`, `grep`…), without the options that make it run a
 *   program (`find -exec`, `sort --compress-program`, `rg --pre`);
 * - `git`: git, which is read-only only when run hardened (see ./git-guard.ts): a repository's
 *   configuration can name programs to run (fsmonitor, hooks, filters, external diff);
 * - `project_code`: everything else — package managers, `make`, test runners and build tools,
 *   interpreters, any path (`./x`, `bin/x`), and every program not on the list, since what a
 *   program does with the files it reads cannot be known from its name.
 */

/** See the module comment. */
export type CommandKind = "read_only" | "git" | "project_code";

/** Programs that read their inputs as data and run nothing a project file names. */
const READ_ONLY = new Set([
  "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find", "pwd", "echo", "printf",
  "diff", "cmp", "stat", "file", "tree", "du", "df", "sort", "uniq", "cut", "tr", "basename", "dirname",
  "realpath", "readlink", "date", "whoami", "uname", "true", "false", "test", "[", "which", "cd", "nl",
  "tac", "sha1sum", "sha256sum", "sha512sum", "md5sum", "id",
]);

/** Options of read-only programs that run another program (given in the command's own words). */
const RUNS_A_PROGRAM: Record<string, (word: string) => boolean> = {
  find: (w) => w === "-exec" || w === "-execdir" || w === "-ok" || w === "-okdir",
  sort: (w) => w.startsWith("--compress-program"),
  rg: (w) => w === "--pre" || w.startsWith("--pre="),
};

/** The kind of one simple command (its words, quotes removed). */
export function commandKind(words: readonly string[]): CommandKind {
  const program = words[0] ?? "";
  // A path runs that file (or a program the project may have put there).
  if (program.includes("/")) return "project_code";
  if (program === "git") return "git";
  if (!READ_ONLY.has(program)) return "project_code";
  const runs = RUNS_A_PROGRAM[program];
  if (runs && words.slice(1).some(runs)) return "project_code";
  return "read_only";
}

/** Git's options that take their value as the next word (`git -C dir status`). */
const GIT_OPTIONS_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"]);

/** The subcommand of a git command's words (`status` of `git -C x status -s`), if any. */
export function gitSubcommand(words: readonly string[]): string | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (GIT_OPTIONS_WITH_VALUE.has(w)) {
      i++;
      continue;
    }
    if (w.startsWith("-")) continue;
    return w;
  }
  return undefined;
}

/** The strongest kind among a line's simple commands (`project_code` over `git` over `read_only`). */
export function lineKind(parts: readonly (readonly string[])[]): CommandKind {
  let kind: CommandKind = "read_only";
  for (const words of parts) {
    const k = commandKind(words);
    if (k === "project_code") return k;
    if (k === "git") kind = "git";
  }
  return kind;
}

import "server-only";
/**
 * Git run so that the project's files cannot turn it into code execution: what an allow-listed
 * git command (`git status*`) runs with when no person approved it.
 *
 * A repository's configuration can name programs git runs by itself: `core.fsmonitor` on every
 * status, hooks, a pager, filters and textconv drivers picked by `.gitattributes` (a file in the
 * work tree, so agents can write it), an external diff. And git takes a folder holding `HEAD`,
 * `config`, `objects/` and `refs/` as a bare repository, configuration included, so an agent
 * that writes those four at the top of a project with no `.git` would have its own fsmonitor run.
 *
 * So an allow-listed git runs with settings of the command line's scope, above every file's
 * (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, git ≥ 2.31, which reach every git
 * a shell line starts): no implicit bare repository (`safe.bareRepository=explicit`), no
 * fsmonitor, hooks from an empty folder, `cat` as pager, no signature checks; each filter and
 * textconv driver the configuration defines becomes `cat` (the file as it is). An external diff
 * (`diff.external`, `diff.<driver>.command`) cannot be switched off from there (an empty value
 * makes git fail), so a repository that sets one is not vouched for, nor is a subcommand that is
 * an alias of the configuration, nor a `.git` in the project made after the conversation began
 * (the file tools refuse `.git`, so an agent cannot have made it through them; a person or an
 * approved command may have, and then a person approves).
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";

/** Settings every hardened git runs with. */
const GIT_HARDENING: ReadonlyArray<readonly [string, string]> = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["log.showSignature", "false"],
];

/** What {@link inspectGit} found. */
export interface GitInspection {
  /** Why git may not run without a person here, if so (the codes of lib/governance's `CommandHold`). */
  refusal?: { code: "git_repository_new" | "git_diff_program"; message: string; detail?: string };
  /** Settings to add to {@link GIT_HARDENING} (the configuration's filters and textconv made `cat`). */
  overrides: Array<[string, string]>;
  /** Subcommands the configuration defines as aliases. */
  aliases: string[];
}

/**
 * `env` for a hardened git: the hardening settings (after any `GIT_CONFIG_COUNT` entries `env`
 * already has, so they win), `cat` as pager, and `PATH` without relative entries (a relative
 * entry would find a program the project holds before the system's).
 */
export function hardenedEnvironment(env: Readonly<Record<string, string>>, overrides: ReadonlyArray<readonly [string, string]> = []): Record<string, string> {
  const out: Record<string, string> = { ...env };
  const start = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  let n = Number.isInteger(start) && start > 0 ? start : 0;
  for (const [key, value] of [...GIT_HARDENING, ...overrides]) {
    out[`GIT_CONFIG_KEY_${n}`] = key;
    out[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  out.GIT_CONFIG_COUNT = String(n);
  out.GIT_PAGER = "cat";
  out.PAGER = "cat";
  delete out.GIT_EXTERNAL_DIFF;
  if (out.PATH !== undefined) out.PATH = out.PATH.split(":").filter((p) => path.isAbsolute(p)).join(":");
  return out;
}

/** The `.git` git would find from `dir` (its own or an ancestor's), if any. */
async function findDotGit(dir: string): Promise<string | undefined> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const candidate = path.join(at, ".git");
    if (await fs.lstat(candidate).then(() => true, () => false)) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

function gitConfig(cwd: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const pattern = "^(filter\\..+\\.(clean|smudge|process|required)|diff\\..+\\.(textconv|command)|diff\\.external|alias\\..+)$";
    execFile("git", ["config", "--null", "--get-regexp", pattern], { cwd, env: env as NodeJS.ProcessEnv, timeout: 10_000, maxBuffer: 1 << 20, encoding: "utf8" }, (_error, stdout) => resolve(stdout ?? ""));
  });
}

/**
 * Whether git may run in `projectRoot` without a person, and with what settings (see the module
 * comment). `trustedSince`: epoch ms before which a `.git` in the project is the person's.
 */
export async function inspectGit(projectRoot: string, trustedSince: number, env: Readonly<Record<string, string>>): Promise<GitInspection> {
  const dotGit = await findDotGit(projectRoot);
  if (dotGit && path.dirname(dotGit) === path.resolve(projectRoot)) {
    const born = (await fs.lstat(dotGit)).birthtimeMs;
    // 0: the file system does not record when a file was made; the file tools' refusal of `.git` stands alone then.
    if (born > 0 && born > trustedSince) {
      return { refusal: { code: "git_repository_new", message: "the project's git repository was made after this conversation started, so it may not be one the person had" }, overrides: [], aliases: [] };
    }
  }
  const text = await gitConfig(projectRoot, hardenedEnvironment(env));
  const overrides: Array<[string, string]> = [];
  const aliases: string[] = [];
  let refusal: GitInspection["refusal"];
  for (const record of text.split("\0")) {
    const key = record.split("\n", 1)[0]!;
    if (!key) continue;
    if (key === "diff.external" || /^diff\..+\.command$/.test(key)) {
      refusal ??= { code: "git_diff_program", message: `the repository's git configuration runs a program for diffs (${key}), which cannot be turned off from the command line`, detail: key };
    }
    else if (/^filter\..+\.(clean|smudge)$/.test(key)) overrides.push([key, "cat"]);
    else if (/^filter\..+\.process$/.test(key)) overrides.push([key, ""]);
    else if (/^filter\..+\.required$/.test(key)) overrides.push([key, "false"]);
    else if (/^diff\..+\.textconv$/.test(key)) overrides.push([key, "cat"]);
    else if (key.startsWith("alias.")) aliases.push(key.slice("alias.".length));
  }
  return { ...(refusal ? { refusal } : {}), overrides, aliases };
}

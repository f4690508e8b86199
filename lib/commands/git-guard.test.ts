/**
 * Hardened git against a real git: a bare repository planted at the top of a project (HEAD,
 * config with an fsmonitor, objects/, refs/) runs its fsmonitor under a plain `git status` and not
 * under the hardened one; a real repository's filter and textconv drivers, picked by an agent's
 * `.gitattributes`, run under plain git and not hardened; what inspectGit refuses.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hardenedEnvironment, inspectGit } from "./git-guard";

const made: string[] = [];
function temp(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-git-guard-"));
  made.push(dir);
  return dir;
}
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const baseEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: temp(), GIT_CONFIG_NOSYSTEM: "1" });
const git = (cwd: string, args: string[], env: Record<string, string>) => spawnSync("git", args, { cwd, env: env as NodeJS.ProcessEnv, encoding: "utf8" });

describe("hardened git", () => {
  it("does not take a planted bare repository, so its fsmonitor never runs", () => {
    const top = temp();
    const project = path.join(top, "project");
    mkdirSync(path.join(project, "objects"), { recursive: true });
    mkdirSync(path.join(project, "refs"));
    const marker = path.join(top, "fsmonitor-ran");
    writeFileSync(path.join(project, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(project, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker}; false"\n`);
    const env = baseEnv();
    // The attack works on plain git (this is what an allow-listed `git status` ran before).
    git(project, ["status"], env);
    const plain = existsSync(marker);
    rmSync(marker, { force: true });
    const hardened = git(project, ["status"], hardenedEnvironment(env));
    expect({ plain, hardened: existsSync(marker) }).toEqual({ plain: true, hardened: false });
    expect(hardened.status).not.toBe(0);
    expect(hardened.stderr).toMatch(/bare repository|not a git repository/);
  });

  it("runs a real repository's filters and textconv as cat, and no fsmonitor or hook", async () => {
    const project = temp();
    const env = baseEnv();
    const run = (args: string[], e = env) => execFileSync("git", args, { cwd: project, env: e as NodeJS.ProcessEnv, encoding: "utf8" });
    run(["init", "-q"]);
    run(["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init"]);
    writeFileSync(path.join(project, "f.txt"), "one\n");
    run(["add", "f.txt"]);
    run(["-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "-m", "f"]);
    const marks = ["clean", "textconv", "fsmonitor", "hook"].map((m) => path.join(project, `${m}-ran`));
    run(["config", "filter.evil.clean", `touch ${marks[0]}; cat`]);
    run(["config", "diff.tx.textconv", `sh -c 'touch ${marks[1]}; cat "$0"'`]);
    run(["config", "core.fsmonitor", `touch ${marks[2]}; false`]);
    writeFileSync(path.join(project, ".git", "hooks", "post-index-change"), `#!/bin/sh\ntouch ${marks[3]}\n`, { mode: 0o755 });
    // What an agent may write: the attributes that pick the drivers, and a change to diff.
    writeFileSync(path.join(project, ".gitattributes"), "*.txt filter=evil diff=tx\n");
    writeFileSync(path.join(project, "f.txt"), "two\n");
    utimesSync(path.join(project, "f.txt"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const found = await inspectGit(project, Date.now() + 60_000, env);
    expect(found.refusal).toBeUndefined();
    const hard = hardenedEnvironment(env, found.overrides);
    const diff = run(["diff"], hard);
    run(["status"], hard);
    expect(diff).toMatch(/-one\n\+two/);
    expect(marks.filter((m) => existsSync(m))).toEqual([]);
    // Plain git runs them: the test sees what it guards against.
    run(["diff"]);
    run(["status"]);
    expect(marks.slice(0, 2).every((m) => existsSync(m))).toBe(true);
  });

  it("refuses a repository made after the conversation began, one with an external diff, and names aliases", async () => {
    const project = temp();
    const env = baseEnv();
    execFileSync("git", ["init", "-q"], { cwd: project, env: env as NodeJS.ProcessEnv });
    expect((await inspectGit(project, Date.now() - 60_000, env)).refusal?.code).toBe("git_repository_new");
    expect((await inspectGit(project, Date.now() + 60_000, env)).refusal).toBeUndefined();
    execFileSync("git", ["config", "diff.external", "my-diff"], { cwd: project, env: env as NodeJS.ProcessEnv });
    execFileSync("git", ["config", "alias.st", "!touch x"], { cwd: project, env: env as NodeJS.ProcessEnv });
    const found = await inspectGit(project, Date.now() + 60_000, env);
    expect(found.refusal).toMatchObject({ code: "git_diff_program", detail: "diff.external" });
    expect(found.aliases).toEqual(["st"]);
  });

  it("adds its settings after the environment's own and drops relative PATH entries", () => {
    const env = hardenedEnvironment({ PATH: ".:node_modules/.bin:/usr/bin", GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "user.name", GIT_CONFIG_VALUE_0: "x", GIT_EXTERNAL_DIFF: "x" }, [["filter.a.clean", "cat"]]);
    expect(env.PATH).toBe("/usr/bin");
    expect(env.GIT_CONFIG_KEY_0).toBe("user.name");
    expect(env.GIT_CONFIG_KEY_1).toBe("safe.bareRepository");
    expect(env[`GIT_CONFIG_KEY_${Number(env.GIT_CONFIG_COUNT) - 1}`]).toBe("filter.a.clean");
    expect(env.GIT_EXTERNAL_DIFF).toBeUndefined();
  });
});

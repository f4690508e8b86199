import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AstrionError, NotFoundError } from "@/lib/contracts/errors";
import { checkRequestedPath, isInsideRoot, resolveInProject, resolveProjectPath, WorkspaceError, type WorkspaceRefusal } from "./resolve";
import { ProtectedFolders } from "./protected";

// A process that protects no folder (./protected.test.ts covers those that are).
const folders = new ProtectedFolders();

let base: string; // real path of the temp folder
let proj: string;

/**
 * <base>/proj            the project
 *   src/a.ts, README.md, .git/config
 *   link-in -> src                      (inside: allowed)
 *   link-in-file -> src/a.ts            (inside: allowed)
 *   link-out -> <base>/outside          (folder outside)
 *   link-evil -> ../proj-evil           (relative, to the sibling sharing the prefix)
 *   file-out -> <base>/outside/secret.txt
 *   dangling -> <base>/nowhere
 *   dangling-in -> missing-file         (dangling, pointing inside)
 *   loop -> loop
 *   chain -> link-out                   (a link to a link that leaves)
 * <base>/proj-evil/x.txt
 * <base>/outside/secret.txt
 * <base>/proj-alias -> proj             (the project reached through a symlink)
 */
beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "astrion-ws-")));
  proj = path.join(base, "proj");
  await fs.mkdir(path.join(proj, "src"), { recursive: true });
  await fs.mkdir(path.join(proj, ".git"));
  await fs.mkdir(path.join(base, "proj-evil"));
  await fs.mkdir(path.join(base, "outside"));
  await fs.writeFile(path.join(proj, "src", "a.ts"), "export const a = 1;\n");
  await fs.writeFile(path.join(proj, "README.md"), "# Demo\n");
  await fs.writeFile(path.join(proj, ".git", "config"), "[core]\n");
  await fs.writeFile(path.join(base, "proj-evil", "x.txt"), "evil\n");
  await fs.writeFile(path.join(base, "outside", "secret.txt"), "secret\n");
  await fs.symlink("src", path.join(proj, "link-in"));
  await fs.symlink(path.join("src", "a.ts"), path.join(proj, "link-in-file"));
  await fs.symlink(path.join(base, "outside"), path.join(proj, "link-out"));
  await fs.symlink(path.join("..", "proj-evil"), path.join(proj, "link-evil"));
  await fs.symlink(path.join(base, "outside", "secret.txt"), path.join(proj, "file-out"));
  await fs.symlink(path.join(base, "nowhere"), path.join(proj, "dangling"));
  await fs.symlink("missing-file", path.join(proj, "dangling-in"));
  await fs.symlink("loop", path.join(proj, "loop"));
  await fs.symlink("link-out", path.join(proj, "chain"));
  await fs.symlink(proj, path.join(base, "proj-alias"));
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function refusal(requested: string, forWrite = false, root = proj): Promise<WorkspaceError> {
  try {
    await resolveInProject(folders, root, requested, { forWrite });
  } catch (error) {
    if (error instanceof WorkspaceError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(requested)} to be refused`);
}

describe("resolveInProject refuses every escape", () => {
  const cases: Array<[string, string, WorkspaceRefusal]> = [
    ["a parent segment", "..", "parent_segment"],
    ["a parent path", "../outside/secret.txt", "parent_segment"],
    ["the prefix sibling through ..", "../proj-evil/x.txt", "parent_segment"],
    ["a parent segment in the middle", "src/../../outside/secret.txt", "parent_segment"],
    ["a parent segment that stays inside", "src/../README.md", "parent_segment"],
    ["a trailing parent segment", "src/..", "parent_segment"],
    ["fullwidth dots", "．．/outside", "parent_segment"],
    ["an absolute path", "/etc/passwd", "absolute_path"],
    ["an absolute path to the sibling", "/tmp/proj-evil/x.txt", "absolute_path"],
    ["a double slash", "//etc/passwd", "absolute_path"],
    ["a drive letter", "C:/Windows", "absolute_path"],
    ["a home folder", "~", "home_path"],
    ["a file in the home folder", "~/.ssh/id_rsa", "home_path"],
    ["another user's home", "~root/.bashrc", "home_path"],
    ["encoded dots", "%2e%2e/outside", "encoded_path"],
    ["upper-case encoded dots and slash", "%2E%2E%2Foutside", "encoded_path"],
    ["an encoded slash", "..%2foutside", "encoded_path"],
    ["an encoded backslash", "..%5coutside", "encoded_path"],
    ["double-encoded dots", "%252e%252e/outside", "encoded_path"],
    ["double-encoded slash", "src%252f..%252f..", "encoded_path"],
    ["triple-encoded dot", "%25252e%25252e/x", "encoded_path"],
    ["an encoded NUL", "a.txt%00.md", "encoded_path"],
    ["overlong UTF-8 dot", "%c0%ae%c0%ae/x", "encoded_path"],
    ["a backslash traversal", "..\\outside", "backslash"],
    ["a backslash in a name", "src\\a.ts", "backslash"],
    ["a NUL byte", "README.md\0.png", "nul_byte"],
    ["a symlinked folder pointing outside", "link-out/secret.txt", "symlink_escape"],
    ["the outward symlink itself", "link-out", "symlink_escape"],
    ["a symlink to the prefix sibling", "link-evil/x.txt", "symlink_escape"],
    ["a file symlink pointing outside", "file-out", "symlink_escape"],
    ["a chain of links that leaves", "chain/secret.txt", "symlink_escape"],
    ["a dangling symlink", "dangling", "dangling_symlink"],
    ["below a dangling symlink", "dangling/x", "dangling_symlink"],
    ["a dangling symlink that points inside", "dangling-in", "dangling_symlink"],
    ["a symlink loop", "loop", "dangling_symlink"],
    ["a path longer than PATH_MAX", "a/".repeat(3000), "invalid_path"],
  ];

  it.each(cases)("for reading: %s (%j)", async (_name, requested, reason) => {
    const error = await refusal(requested);
    expect(error.reason).toBe(reason);
    expect(error).toBeInstanceOf(AstrionError);
    expect(error.code).toBe("forbidden");
    expect(error.status).toBe(403);
  });

  it.each(cases)("for writing: %s (%j)", async (_name, requested, reason) => {
    expect((await refusal(requested, true)).reason).toBe(reason);
  });

  it.each([
    ["a new file under a symlinked folder outside", "link-out/new.txt", "symlink_escape"],
    ["a new nested file under a symlinked folder outside", "link-out/a/b/new.txt", "symlink_escape"],
    ["a new file under the prefix sibling link", "link-evil/new.txt", "symlink_escape"],
    ["a dangling symlink (the write would create its target)", "dangling", "dangling_symlink"],
    ["a new file inside .git", ".git/hooks/pre-commit", "protected_path"],
    ["an existing file inside .git", ".git/config", "protected_path"],
    [".git in another case", ".GIT/config", "protected_path"],
    ["HEAD at the top (with objects/ and refs/, a bare repository git would use)", "HEAD", "protected_path"],
    ["HEAD in a subfolder", "sub/HEAD", "protected_path"],
    ["head in another case", "deep/Head", "protected_path"],
    ["commondir (it stands in for objects/ and refs/)", "commondir", "protected_path"],
    ["the config of a bare repository already in the project", "bare/config", "protected_path"],
    ["a hook of that repository", "bare/hooks/fsmonitor-watchman", "protected_path"],
  ] as const)("for writing: %s", async (_name, requested, reason) => {
    await fs.mkdir(path.join(proj, "bare", "objects"), { recursive: true });
    await fs.mkdir(path.join(proj, "bare", "refs"), { recursive: true });
    await fs.writeFile(path.join(proj, "bare", "HEAD"), "ref: refs/heads/main\n");
    expect((await refusal(requested, true)).reason).toBe(reason);
  });

  it("writes files named like a repository's parts where no HEAD makes them one", async () => {
    await fs.mkdir(path.join(proj, "lib", "objects"), { recursive: true });
    await fs.mkdir(path.join(proj, "lib", "refs"), { recursive: true });
    await expect(resolveInProject(folders, proj, "lib/objects/user.ts", { forWrite: true })).resolves.toBe(path.join(proj, "lib", "objects", "user.ts"));
    await expect(resolveInProject(folders, proj, "lib/config", { forWrite: true })).resolves.toBe(path.join(proj, "lib", "config"));
    await expect(resolveInProject(folders, proj, "docs/HEAD.md", { forWrite: true })).resolves.toBe(path.join(proj, "docs", "HEAD.md"));
  });

  it("refuses non-string input", () => {
    expect(() => checkRequestedPath(42)).toThrow(WorkspaceError);
    expect(() => checkRequestedPath(undefined)).toThrow(WorkspaceError);
  });

  it("never reveals where an escaping link points", async () => {
    const error = await refusal("link-out/secret.txt");
    expect(error.message).not.toContain(base);
    expect(error.message).toContain("link-out/secret.txt");
    expect(error.details).toEqual({ reason: "symlink_escape", path: "link-out/secret.txt" });
  });

  it("refuses a symlink to .git for writing (the real path is checked too)", async () => {
    await fs.symlink(".git", path.join(proj, "gitlink"));
    try {
      expect((await refusal("gitlink/config", true)).reason).toBe("protected_path");
      await expect(resolveInProject(folders, proj, "gitlink/config")).resolves.toBe(path.join(proj, ".git", "config"));
    } finally {
      await fs.rm(path.join(proj, "gitlink"));
    }
  });
});

describe("resolveInProject resolves normal paths to real paths inside", () => {
  it.each([
    ["", "."],
    [".", "."],
    ["./", "."],
    ["src", "src"],
    ["src/a.ts", "src/a.ts"],
    ["./src//a.ts", "src/a.ts"],
    ["src/./a.ts", "src/a.ts"],
    ["link-in/a.ts", "src/a.ts"],
    ["link-in-file", "src/a.ts"],
    [".git/config", ".git/config"],
    ["...", "..."],
    ["..foo/bar", "..foo/bar"],
    ["名前 with spaces.md", "名前 with spaces.md"],
    ["100%.txt", "100%.txt"],
    ["file~", "file~"],
  ])("%j → %s", async (requested, relative) => {
    const resolved = await resolveProjectPath(folders, proj, requested);
    expect(resolved.relative).toBe(relative);
    expect(resolved.absolute).toBe(relative === "." ? proj : path.join(proj, relative));
    expect(resolved.root).toBe(proj);
  });

  it("resolves a file not yet created from its deepest existing ancestor", async () => {
    const resolved = await resolveProjectPath(folders, proj, "new/deeper/file.txt", { forWrite: true });
    expect(resolved).toEqual({ root: proj, absolute: path.join(proj, "new", "deeper", "file.txt"), relative: "new/deeper/file.txt", exists: false });
    const viaLink = await resolveProjectPath(folders, proj, "link-in/new.ts", { forWrite: true });
    expect(viaLink.absolute).toBe(path.join(proj, "src", "new.ts"));
    expect(viaLink.exists).toBe(false);
    // Nothing was created by resolving.
    await expect(fs.stat(path.join(proj, "new"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("works when the project folder is given through a symlink, answering with real paths", async () => {
    const alias = path.join(base, "proj-alias");
    await expect(resolveInProject(folders, alias, "src/a.ts")).resolves.toBe(path.join(proj, "src", "a.ts"));
    expect((await refusal("link-out/secret.txt", false, alias)).reason).toBe("symlink_escape");
  });

  it("a path under a file resolves as missing (the tool reports not found)", async () => {
    const resolved = await resolveProjectPath(folders, proj, "README.md/x");
    expect(resolved.exists).toBe(false);
  });

  it("needs an existing, absolute project folder", async () => {
    await expect(resolveInProject(folders, path.join(base, "no-such-project"), "a")).rejects.toBeInstanceOf(NotFoundError);
    await expect(resolveInProject(folders, "relative/project", "a")).rejects.toBeInstanceOf(NotFoundError);
    await expect(resolveInProject(folders, path.join(proj, "README.md"), "a")).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("isInsideRoot", () => {
  it.each([
    ["/proj", "/proj", true],
    ["/proj", "/proj/a", true],
    ["/proj", "/proj/a/b", true],
    ["/proj", "/proj-evil", false],
    ["/proj", "/proj-evil/a", false],
    ["/proj", "/projx", false],
    ["/proj", "/", false],
    ["/proj", "/other", false],
    ["/", "/anything", true],
  ])("%s contains %s: %s", (root, candidate, inside) => {
    expect(isInsideRoot(root, candidate)).toBe(inside);
  });
});

describe("names longer than any file system allows", () => {
  it("are a clear 400 instead of a file-system error", async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-names-"));
    for (const name of ["p".repeat(256), "配".repeat(86), `ok/${"q".repeat(4000)}`]) {
      await expect(resolveInProject(folders, root, name)).rejects.toMatchObject({ code: "validation_failed", status: 400 });
    }
    expect(await resolveInProject(folders, root, "p".repeat(255))).toBe(path.join(await fs.realpath(root), "p".repeat(255)));
  });
});

import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AstrionError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { FileQueues, TEMP_FILE_PATTERN } from "@/lib/store/atomic";
import { WorkspaceError } from "./resolve";
import { WorkspaceToolError } from "./tools";
import { ProtectedFolders } from "./protected";
import { Workspace } from "./workspace";

// One process's workspace, as the composition root makes it.
const ws = new Workspace({ protectedFolders: new ProtectedFolders(), queues: new FileQueues() });

let base: string;
let proj: string;
let outside: string;

/**
 * <base>/proj: src/{a.ts,b.tsx,util/c.ts}, README.md, docs/guide.md, big.txt, utf8.txt, bin.dat,
 *   node_modules/pkg/index.js, .git/config, link-in -> src, link-out -> <base>/outside,
 *   file-out -> <base>/outside/secret.txt, dangling -> <base>/nowhere
 * <base>/outside/secret.txt, <base>/proj-evil/x.txt — all containing the word NEEDLE.
 */
beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "astrion-tools-")));
  proj = path.join(base, "proj");
  outside = path.join(base, "outside");
  const files: Record<string, string | Buffer> = {
    "src/a.ts": "export const a = 1;\n// NEEDLE in a\n",
    "src/b.tsx": "export const B = () => null; // needle lower\n",
    "src/util/c.ts": "line one\nline two NEEDLE\r\nline three\n",
    "README.md": "# Demo\nNo match here.\n",
    "docs/guide.md": `${"x".repeat(500)}NEEDLE${"y".repeat(500)}\n`,
    "big.txt": "0123456789".repeat(1000),
    "utf8.txt": "中文字符",
    "bin.dat": Buffer.from([0x4e, 0x45, 0x45, 0x44, 0x4c, 0x45, 0x00, 0x01]),
    "node_modules/pkg/index.js": "NEEDLE in node_modules\n",
    ".git/config": "NEEDLE in git\n",
  };
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(proj, rel)), { recursive: true });
    await fs.writeFile(path.join(proj, rel), content);
  }
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, "secret.txt"), "NEEDLE secret\n");
  await fs.mkdir(path.join(base, "proj-evil"));
  await fs.writeFile(path.join(base, "proj-evil", "x.txt"), "NEEDLE evil\n");
  await fs.symlink("src", path.join(proj, "link-in"));
  await fs.symlink(outside, path.join(proj, "link-out"));
  await fs.symlink(path.join(outside, "secret.txt"), path.join(proj, "file-out"));
  await fs.symlink(path.join(base, "nowhere"), path.join(proj, "dangling"));
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

describe("listFiles", () => {
  it("lists the project root, folders first, symlinks reported but not followed", async () => {
    const result = await ws.listFiles(proj, ".");
    expect(result.path).toBe(".");
    expect(result.truncated).toBe(false);
    expect(result.entries.map((e) => `${e.type}:${e.path}`)).toEqual([
      "dir:.git",
      "dir:docs",
      "dir:node_modules",
      "dir:src",
      "file:README.md",
      "file:big.txt",
      "file:bin.dat",
      "symlink:dangling",
      "symlink:file-out",
      "symlink:link-in",
      "symlink:link-out",
      "file:utf8.txt",
    ]);
    expect(result.entries.find((e) => e.path === "big.txt")?.size).toBe(10_000);
    expect(result.entries.find((e) => e.path === "link-out")?.size).toBeUndefined();
  });

  it("descends to the requested depth, but not into node_modules or .git", async () => {
    const result = await ws.listFiles(proj, ".", { depth: 3 });
    const paths = result.entries.map((e) => e.path);
    expect(paths).toContain("src/a.ts");
    expect(paths).toContain("src/util/c.ts");
    expect(paths).toContain("node_modules");
    expect(paths.some((p) => p.startsWith("node_modules/"))).toBe(false);
    expect(paths.some((p) => p.startsWith(".git/"))).toBe(false);
    expect(paths.some((p) => p.startsWith("link-out/"))).toBe(false);
  });

  it("lists a subfolder, also through a symlink inside the project", async () => {
    expect((await ws.listFiles(proj, "src")).entries.map((e) => e.path)).toEqual(["src/util", "src/a.ts", "src/b.tsx"]);
    expect((await ws.listFiles(proj, "link-in")).entries.map((e) => e.path)).toEqual(["src/util", "src/a.ts", "src/b.tsx"]);
  });

  it("stops at maxEntries and says so", async () => {
    const result = await ws.listFiles(proj, ".", { maxEntries: 3 });
    expect(result.entries).toHaveLength(3);
    expect(result.truncated).toBe(true);
  });

  it("refuses escapes and reports missing folders and files", async () => {
    await expect(ws.listFiles(proj, "link-out")).rejects.toBeInstanceOf(WorkspaceError);
    await expect(ws.listFiles(proj, "..")).rejects.toBeInstanceOf(WorkspaceError);
    await expect(ws.listFiles(proj, "nope")).rejects.toBeInstanceOf(NotFoundError);
    await expect(ws.listFiles(proj, "README.md")).rejects.toBeInstanceOf(WorkspaceToolError);
  });
});

describe("readFile", () => {
  it("reads a text file", async () => {
    expect(await ws.readFile(proj, "src/a.ts")).toEqual({
      path: "src/a.ts",
      content: "export const a = 1;\n// NEEDLE in a\n",
      size: 35,
      truncated: false,
      linesShown: 2,
      totalLines: 2,
    });
  });

  it("makes no trip through the thread pool for a small file (its checks and its read are synchronous)", async () => {
    // Each fs.promises call costs a hand-off to a pool thread and back (protected.ts); a read_file
    // used to make about a dozen of them.
    const spies = (["stat", "lstat", "realpath", "open", "readFile", "access"] as const).map((name) => vi.spyOn(fs, name));
    try {
      expect((await ws.readFile(proj, "link-in/util/c.ts")).content).toContain("NEEDLE");
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("reads through a symlink inside the project, answering with the real path", async () => {
    expect((await ws.readFile(proj, "link-in/a.ts")).path).toBe("src/a.ts");
  });

  it("caps what it reads at maxBytes", async () => {
    const result = await ws.readFile(proj, "big.txt", { maxBytes: 25 });
    // one line with no newline: it can only be cut inside, and the note says so
    expect(result).toMatchObject({ path: "big.txt", content: "0123456789012345678901234", size: 10_000, truncated: true, linesShown: 1, totalLines: 1 });
    expect(result.note).toMatch(/^line 1 alone is too long to show: only its first 25 characters are shown/);
  });

  it("never ends in half a character", async () => {
    // Each character is 3 bytes: 4 bytes hold one whole character and a third of the next.
    expect((await ws.readFile(proj, "utf8.txt", { maxBytes: 4 })).content).toBe("中");
    expect((await ws.readFile(proj, "utf8.txt", { maxBytes: 6 })).content).toBe("中文");
    expect((await ws.readFile(proj, "utf8.txt")).content).toBe("中文字符");
  });

  it("refuses binary files, folders, missing files and escapes", async () => {
    await expect(ws.readFile(proj, "bin.dat")).rejects.toThrow(/Binary file/);
    await expect(ws.readFile(proj, "src")).rejects.toBeInstanceOf(WorkspaceToolError);
    await expect(ws.readFile(proj, "missing.txt")).rejects.toBeInstanceOf(NotFoundError);
    await expect(ws.readFile(proj, "file-out")).rejects.toMatchObject({ reason: "symlink_escape" });
    await expect(ws.readFile(proj, "link-out/secret.txt")).rejects.toMatchObject({ reason: "symlink_escape" });
    await expect(ws.readFile(proj, "../outside/secret.txt")).rejects.toMatchObject({ reason: "parent_segment" });
    await expect(ws.readFile(proj, path.join(outside, "secret.txt"))).rejects.toMatchObject({ reason: "absolute_path" });
    await expect(ws.readFile(proj, "dangling")).rejects.toMatchObject({ reason: "dangling_symlink" });
  });

  const hasMkfifo = spawnSync("mkfifo", ["--version"]).status === 0;
  it.skipIf(!hasMkfifo)("refuses a FIFO instead of hanging on it", async () => {
    const fifo = path.join(proj, "pipe");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    try {
      await expect(ws.readFile(proj, "pipe")).rejects.toThrow(/Not a regular file/);
    } finally {
      await fs.rm(fifo);
    }
  });
});

describe("searchFiles", () => {
  it("finds plain text case-insensitively, skipping node_modules, .git, binaries and symlinks", async () => {
    const result = await ws.searchFiles(proj, "needle");
    expect(result.truncated).toBe(false);
    expect(result.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      "docs/guide.md:1",
      "src/a.ts:2",
      "src/b.tsx:1",
      "src/util/c.ts:2",
    ]);
    expect(result.matches.find((m) => m.path === "src/util/c.ts")?.text).toBe("line two NEEDLE");
    const everything = JSON.stringify(result);
    expect(everything).not.toContain("secret");
    expect(everything).not.toContain("evil");
    expect(everything).not.toContain("node_modules");
  });

  it("shortens long lines around the match", async () => {
    const { matches } = await ws.searchFiles(proj, "NEEDLE", { glob: "*.md" });
    expect(matches).toHaveLength(1);
    const text = matches[0]?.text ?? "";
    expect(text).toContain("NEEDLE");
    expect(text.length).toBeLessThanOrEqual(302);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
  });

  it("can be case-sensitive", async () => {
    const { matches } = await ws.searchFiles(proj, "needle", { caseSensitive: true });
    expect(matches.map((m) => m.path)).toEqual(["src/b.tsx"]);
  });

  it("filters by glob: a bare pattern matches names anywhere, a path pattern the whole path", async () => {
    expect((await ws.searchFiles(proj, "needle", { glob: "*.ts" })).matches.map((m) => m.path)).toEqual(["src/a.ts", "src/util/c.ts"]);
    expect((await ws.searchFiles(proj, "needle", { glob: "*.{ts,tsx}" })).matches).toHaveLength(3);
    expect((await ws.searchFiles(proj, "needle", { glob: "src/*.ts" })).matches.map((m) => m.path)).toEqual(["src/a.ts"]);
    expect((await ws.searchFiles(proj, "needle", { glob: "src/**/*.ts" })).matches.map((m) => m.path)).toEqual([
      "src/a.ts",
      "src/util/c.ts",
    ]);
  });

  it("searches one folder or one file when given a path", async () => {
    expect((await ws.searchFiles(proj, "needle", { path: "src/util" })).matches.map((m) => m.path)).toEqual(["src/util/c.ts"]);
    expect((await ws.searchFiles(proj, "needle", { path: "src/a.ts" })).matches.map((m) => m.path)).toEqual(["src/a.ts"]);
    await expect(ws.searchFiles(proj, "needle", { path: "link-out" })).rejects.toMatchObject({ reason: "symlink_escape" });
    await expect(ws.searchFiles(proj, "needle", { path: "../proj-evil" })).rejects.toBeInstanceOf(WorkspaceError);
    await expect(ws.searchFiles(proj, "needle", { path: "missing" })).rejects.toBeInstanceOf(NotFoundError);
  });

  it("stops at maxMatches or maxFiles and says so", async () => {
    const capped = await ws.searchFiles(proj, "needle", { maxMatches: 2 });
    expect(capped.matches).toHaveLength(2);
    expect(capped.truncated).toBe(true);
    const fewFiles = await ws.searchFiles(proj, "needle", { maxFiles: 1 });
    expect(fewFiles.filesScanned).toBe(1);
    expect(fewFiles.truncated).toBe(true);
  });

  it("skips files over maxFileBytes", async () => {
    const { matches } = await ws.searchFiles(proj, "needle", { maxFileBytes: 100 });
    expect(matches.map((m) => m.path)).not.toContain("docs/guide.md");
  });

  it("treats the query as text, not a regular expression", async () => {
    await expect(ws.searchFiles(proj, "(a+)+$")).resolves.toMatchObject({ matches: [] });
    expect((await ws.searchFiles(proj, "a = 1;")).matches.map((m) => m.path)).toEqual(["src/a.ts"]);
  });

  it("refuses empty or multi-line queries and bad globs", async () => {
    await expect(ws.searchFiles(proj, "")).rejects.toBeInstanceOf(ValidationError);
    await expect(ws.searchFiles(proj, "a\nb")).rejects.toBeInstanceOf(ValidationError);
    await expect(ws.searchFiles(proj, "a", { glob: "{ts" })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("writeFile", () => {
  it("creates a file and its missing folders inside the project", async () => {
    const result = await ws.writeFile(proj, "out/new/dir/notes.md", "# 笔记\n");
    expect(result).toEqual({ path: "out/new/dir/notes.md", bytes: Buffer.byteLength("# 笔记\n"), created: true });
    expect(await fs.readFile(path.join(proj, "out/new/dir/notes.md"), "utf8")).toBe("# 笔记\n");
  });

  it("replaces an existing file whole and leaves no temp files", async () => {
    await ws.writeFile(proj, "out/replace.txt", "first version, longer");
    const result = await ws.writeFile(proj, "out/replace.txt", "second");
    expect(result.created).toBe(false);
    expect(await fs.readFile(path.join(proj, "out/replace.txt"), "utf8")).toBe("second");
    expect((await fs.readdir(path.join(proj, "out"))).filter((n) => TEMP_FILE_PATTERN.test(n))).toEqual([]);
  });

  it("writes through a symlinked folder that stays inside", async () => {
    const result = await ws.writeFile(proj, "link-in/fresh.ts", "export {};\n");
    expect(result.path).toBe("src/fresh.ts");
    expect(await fs.readFile(path.join(proj, "src", "fresh.ts"), "utf8")).toBe("export {};\n");
  });

  it("refuses every escape and creates nothing outside", async () => {
    const before = (await fs.readdir(outside)).sort();
    const attempts: Array<[string, string]> = [
      ["link-out/new.txt", "symlink_escape"],
      ["link-out/deep/new.txt", "symlink_escape"],
      ["file-out", "symlink_escape"],
      ["dangling", "dangling_symlink"],
      ["dangling/new.txt", "dangling_symlink"],
      ["../outside/new.txt", "parent_segment"],
      ["../proj-evil/new.txt", "parent_segment"],
      [path.join(outside, "new.txt"), "absolute_path"],
      ["~/new.txt", "home_path"],
      ["%2e%2e/outside/new.txt", "encoded_path"],
      ["..\\outside\\new.txt", "backslash"],
      ["new\0.txt", "nul_byte"],
      [".git/hooks/pre-commit", "protected_path"],
    ];
    for (const [requested, reason] of attempts) {
      await expect(ws.writeFile(proj, requested, "pwned")).rejects.toMatchObject({ reason, code: "forbidden" });
    }
    expect((await fs.readdir(outside)).sort()).toEqual(before);
    expect(await fs.readFile(path.join(outside, "secret.txt"), "utf8")).toBe("NEEDLE secret\n");
    await expect(fs.stat(path.join(base, "nowhere"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.stat(path.join(proj, ".git", "hooks"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await fs.readdir(path.join(base, "proj-evil"))).toEqual(["x.txt"]);
  });

  it("refuses folders, the project root, paths under a file and oversized content", async () => {
    await expect(ws.writeFile(proj, "src", "x")).rejects.toBeInstanceOf(WorkspaceToolError);
    await expect(ws.writeFile(proj, ".", "x")).rejects.toBeInstanceOf(WorkspaceToolError);
    await expect(ws.writeFile(proj, "README.md/child.txt", "x")).rejects.toBeInstanceOf(WorkspaceToolError);
    const tooBig = ws.writeFile(proj, "big-out.txt", "x".repeat(11), { maxBytes: 10 });
    await expect(tooBig).rejects.toBeInstanceOf(AstrionError);
    await expect(tooBig).rejects.toMatchObject({ code: "payload_too_large" });
    await expect(fs.stat(path.join(proj, "big-out.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { RoleLibrary, sanitizeRoleId } from "./library";
import { newRoleLibrary } from "@/test/helpers/role-library";
import { parseRoleFile } from "./parse";
import type { RoleDetail } from "./schema";

const REPO_AGENTS = fileURLToPath(new URL("../../agents", import.meta.url));

let root: string;
let dir: string;
let lib: RoleLibrary;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-roles-"));
  dir = path.join(root, "agents");
  await fs.mkdir(dir);
  lib = newRoleLibrary(dir);
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const GOOD = "---\nid: alpha\nname: alpha Role\ndescription: First role\ncapabilities: [research]\ncolor: red\n---\nPrompt A\n";

async function write(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, text);
  return file;
}

/** The bytes and inode of a file: an atomic rewrite changes the inode even with equal bytes. */
async function snapshot(file: string): Promise<{ text: string; ino: number; mtimeMs: number }> {
  const stat = await fs.stat(file);
  return { text: await fs.readFile(file, "utf8"), ino: stat.ino, mtimeMs: stat.mtimeMs };
}

async function expectReject<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

const BROKEN: Record<string, { text: string; message: RegExp; line?: number }> = {
  "no-frontmatter.md": { text: "Just a prompt, no fields\n", message: /no frontmatter/ },
  "unclosed.md": { text: "---\nname: x\ndescription: y\nbody\n", message: /unclosed frontmatter/ },
  "bad-yaml.md": { text: "---\nname: x\ndescription: y\nmodel: [opus\n---\nbody\n", message: /YAML error/ },
  "no-name.md": { text: "---\ndescription: y\n---\nbody\n", message: /name: is required/ },
};

describe("RoleLibrary.list and get", () => {
  it("lists roles sorted by name with error entries, ignoring other files, temp files and folders", async () => {
    await write("alpha.md", GOOD);
    await write("beta.md", "---\nname: Beta\ndescription: Second\ntools: Read, Grep\n---\n");
    await write("gamma.md", "---\nname: ALPHA zeta\ndescription: Third\n---\n");
    for (const [name, { text }] of Object.entries(BROKEN)) await write(name, text);
    await write("notes.txt", "not a role");
    await write("alpha.md.1234.0123456789ab.tmp", GOOD);
    await write(".hidden.md", GOOD);
    await fs.mkdir(path.join(dir, "sub.md"));
    await fs.writeFile(path.join(dir, "sub.md", "inner.md"), GOOD);

    const list = await lib.list();
    expect(list.map((e) => e.id)).toEqual(["alpha", "gamma", "bad-yaml", "beta", "no-frontmatter", "no-name", "unclosed"]);
    expect(list[0]).toEqual({
      kind: "role",
      id: "alpha",
      file: "alpha.md",
      name: "alpha Role",
      description: "First role",
      capabilities: ["research"],
      tools: [],
      permissions: [],
      // no permissions: key: the default, read
      access: { permissions: ["read"], project_tools: ["list_files", "read_file", "search_files"] },
      color: "red",
      warnings: [],
    });
    expect(list.find((e) => e.id === "beta")).toMatchObject({ kind: "role", tools: ["Read", "Grep"] });
    for (const [name, { message }] of Object.entries(BROKEN)) {
      const entry = list.find((e) => e.file === name);
      expect(entry).toMatchObject({ kind: "error", file: name, message: expect.stringMatching(message) });
    }
  });

  it("lists anew after its own writes and after a hand edit, and hands out a fresh array each time", async () => {
    await write("alpha.md", GOOD);
    const first = await lib.list();
    const again = await lib.list();
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    await lib.remove("alpha");
    expect(await lib.list()).toEqual([]);
    await write("beta.md", GOOD.replace("id: alpha", "id: beta").replace("alpha Role", "Beta Role"));
    // A hand edit reaches the next listing through the folder's watch.
    for (let i = 0; i < 100 && (await lib.list()).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await lib.list()).map((e) => e.kind === "role" && e.name)).toEqual(["Beta Role"]);
  });

  it("catalogs each readable id-named role as get gives it, the same object while the folder is unchanged", async () => {
    await write("alpha.md", GOOD);
    await write("beta.md", GOOD.replace("id: alpha", "id: beta").replace("alpha Role", "Beta Role"));
    await write("Not An Id.md", GOOD.replace("id: alpha", "id: gamma").replace("alpha Role", "Gamma Role"));
    await write("broken.md", BROKEN["bad-yaml.md"]?.text ?? "");
    const catalog = await lib.catalog();
    expect(await lib.catalog()).toBe(catalog);
    expect(catalog.entries).toEqual(await lib.list());
    expect([...catalog.details.keys()].sort()).toEqual(["alpha", "beta"]);
    for (const id of ["alpha", "beta"]) expect(catalog.details.get(id)).toEqual(await lib.get(id));
    await lib.remove("beta");
    const after = await lib.catalog();
    expect(after).not.toBe(catalog);
    expect([...after.details.keys()]).toEqual(["alpha"]);
  });

  it("never rewrites a broken file when listing or reading it", async () => {
    const files = await Promise.all(Object.entries(BROKEN).map(([name, { text }]) => write(name, text)));
    const before = await Promise.all(files.map(snapshot));
    await lib.list();
    for (const name of Object.keys(BROKEN)) {
      const detail = await lib.get(name.replace(/\.md$/, ""));
      expect(detail.kind).toBe("error");
      expect(detail.raw).toBe(BROKEN[name]?.text);
    }
    expect(await Promise.all(files.map(snapshot))).toEqual(before);
    expect((await fs.readdir(dir)).sort()).toEqual(Object.keys(BROKEN).sort());
  });

  it("gives the line of a YAML error", async () => {
    await write("bad-yaml.md", BROKEN["bad-yaml.md"]?.text ?? "");
    const detail = await lib.get("bad-yaml");
    expect(detail.kind === "error" && detail.error.line).toBeGreaterThanOrEqual(4);
  });

  it("lists nothing for a missing folder, and keeps listing when one file cannot be read", async () => {
    expect(await newRoleLibrary(path.join(root, "missing")).list()).toEqual([]);
    await write("alpha.md", GOOD);
    const locked = await write("locked.md", GOOD.replace("alpha", "locked"));
    await fs.chmod(locked, 0o000);
    const list = await lib.list();
    await fs.chmod(locked, 0o644);
    expect(list.find((e) => e.id === "alpha")?.kind).toBe("role");
    // Root can read a 000 file; anyone else gets an error entry. Either way the list survives.
    expect(list).toHaveLength(2);
  });

  it("rejects ids that could name another path, and 404s a missing role", async () => {
    for (const id of ["..", "a/b", "%2e%2e", "a\u0000b", "", "../agents/alpha", "a\\b", ".hidden"]) {
      await expectReject(lib.get(id), ValidationError);
      await expectReject(lib.remove(id), ValidationError);
      await expectReject(lib.update(id, { raw: GOOD }), ValidationError);
    }
    await expectReject(lib.get("nobody"), NotFoundError);
  });
});

describe("RoleLibrary.create", () => {
  it("creates a role file from the form and refuses to overwrite one", async () => {
    const created = await lib.create({
      fields: { id: "writer", name: "Writer", description: "Writes docs", permissions: ["read", "write"] },
      body: "You write.\n",
    });
    expect(created).toMatchObject({ kind: "role", id: "writer", fields: { name: "Writer" }, body: "You write.\n" });
    const text = await fs.readFile(path.join(dir, "writer.md"), "utf8");
    expect(text).toBe("---\nid: writer\nname: Writer\ndescription: Writes docs\npermissions: [read, write]\n---\nYou write.\n");
    expect(created.etag).toBe(parseRoleFile("writer.md", text).etag);

    await expectReject(
      lib.create({ fields: { id: "writer", name: "Other", description: "x" }, body: "" }),
      ConflictError,
    );
    expect(await fs.readFile(path.join(dir, "writer.md"), "utf8")).toBe(text);
  });

  it("lets only one of two simultaneous creates of the same id win", async () => {
    const results = await Promise.allSettled([
      lib.create({ fields: { id: "twin", name: "One", description: "x" }, body: "" }),
      lib.create({ fields: { id: "twin", name: "Two", description: "x" }, body: "" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")?.reason).toBeInstanceOf(ConflictError);
  });

  it("creates the roles folder when it does not exist and validates the fields", async () => {
    const fresh = newRoleLibrary(path.join(root, "new", "agents"));
    await fresh.create({ fields: { id: "a", name: "A", description: "B" }, body: "" });
    expect((await fresh.list()).map((e) => e.id)).toEqual(["a"]);
    await expectReject(
      fresh.create({ fields: { id: "../x", name: "A", description: "B" }, body: "" }),
      ValidationError,
    );
  });
});

describe("RoleLibrary.update", () => {
  it("form save rewrites only the changed field and keeps unknown keys and comments", async () => {
    const original = "---\nname: Alpha   # display\ndescription: Old\n# keep\ncolor: red\ntools: Read, Grep\n---\nBody\n";
    const file = await write("alpha.md", original);
    const detail = (await lib.get("alpha")) as RoleDetail;
    const saved = await lib.update("alpha", {
      etag: detail.etag,
      fields: { name: "Alpha", description: "New", tools: ["Read", "Grep"] },
      body: detail.body,
    });
    expect(await fs.readFile(file, "utf8")).toBe(original.replace("description: Old", "description: New"));
    expect(saved.fields.description).toBe("New");
    expect(saved.extra).toEqual({ color: "red" });
    expect(saved.etag).not.toBe(detail.etag);
  });

  it("form save with no change does not write at all", async () => {
    const file = await write("alpha.md", GOOD);
    const before = await snapshot(file);
    const detail = (await lib.get("alpha")) as RoleDetail;
    const { id: _id, ...fields } = detail.fields;
    void _id;
    const saved = await lib.update("alpha", { etag: detail.etag, fields, body: detail.body });
    expect(saved.etag).toBe(detail.etag);
    expect(await snapshot(file)).toEqual(before);
  });

  it("refuses a save whose etag is stale and leaves the file alone", async () => {
    const file = await write("alpha.md", GOOD);
    const detail = (await lib.get("alpha")) as RoleDetail;
    await fs.writeFile(file, GOOD.replace("First role", "Edited elsewhere"));
    const error = await expectReject(
      lib.update("alpha", { etag: detail.etag, fields: { name: "X", description: "Y" }, body: "" }),
      ConflictError,
    );
    expect(error.message).toMatch(/changed on disk since you opened it/);
    await expectReject(lib.update("alpha", { etag: detail.etag, raw: GOOD }), ConflictError);
    expect(await fs.readFile(file, "utf8")).toContain("Edited elsewhere");
  });

  it("keeps a broken file until a raw save that parses fixes it", async () => {
    const text = BROKEN["bad-yaml.md"]?.text ?? "";
    const file = await write("bad-yaml.md", text);
    const broken = await lib.get("bad-yaml");
    expect(broken.kind).toBe("error");

    const formError = await expectReject(
      lib.update("bad-yaml", { etag: broken.etag, fields: { name: "x", description: "y" }, body: "" }),
      ValidationError,
    );
    expect(formError.details).toEqual([expect.objectContaining({ path: "raw" })]);

    const stillBroken = "---\nname: x\ndescription: y\nmodel: [opus\nmore: 1\n---\nbody\n";
    const rawError = await expectReject(lib.update("bad-yaml", { etag: broken.etag, raw: stillBroken }), ValidationError);
    expect(rawError.details).toEqual([
      { path: "raw", message: expect.stringMatching(/YAML error/), line: expect.any(Number) },
    ]);
    expect(await fs.readFile(file, "utf8")).toBe(text);

    const fixed = "---\nid: something-else\nname: x\ndescription: y\nmodel: opus\n---\nbody\n";
    const saved = await lib.update("bad-yaml", { etag: broken.etag, raw: fixed });
    expect(saved).toMatchObject({ kind: "role", id: "bad-yaml", fields: { id: "bad-yaml", model: "opus" } });
    expect(saved.warnings).toHaveLength(1);
    expect(await fs.readFile(file, "utf8")).toBe(fixed);
    expect((await lib.list()).map((e) => e.kind)).toEqual(["role"]);
  });

  it("rejects invalid form fields and missing roles", async () => {
    await write("alpha.md", GOOD);
    await expectReject(
      lib.update("alpha", { fields: { name: "", description: "y" }, body: "" }),
      ValidationError,
    );
    await expectReject(lib.update("ghost", { raw: GOOD }), NotFoundError);
  });
});

describe("RoleLibrary.remove", () => {
  it("deletes a role file, and 404s when there is none", async () => {
    await write("alpha.md", GOOD);
    await lib.remove("alpha");
    expect(await lib.list()).toEqual([]);
    await expectReject(lib.remove("alpha"), NotFoundError);
  });
});

describe("RoleLibrary.importRole", () => {
  const claude = "---\nname: bug-hunter\ndescription: Finds bugs\ntools: Read, Grep\nmodel: sonnet\ncolor: red\n---\r\nBody\n";

  it("stores the content byte for byte under the frontmatter id, the file name or the name", async () => {
    const byId = await lib.importRole({ content: "---\nid: from-id\nname: N\ndescription: D\n---\n", file_name: "other.md" });
    expect(byId.id).toBe("from-id");
    const byFile = await lib.importRole({ content: claude, file_name: "C:\\Users\\me\\agents\\Bug Hunter.md" });
    expect(byFile.id).toBe("Bug-Hunter");
    expect(await fs.readFile(path.join(dir, "Bug-Hunter.md"), "utf8")).toBe(claude);
    const byName = await lib.importRole({ content: "---\nname: UI Operator Pro\ndescription: D\n---\n" });
    expect(byName.id).toBe("ui-operator-pro");
  });

  it("keeps a path in the file name from escaping the roles folder", async () => {
    const role = await lib.importRole({ content: claude, file_name: "../../escape.md" });
    expect(role.id).toBe("escape");
    expect(await fs.readdir(dir)).toEqual(["escape.md"]);
    expect(sanitizeRoleId("%2e%2e")).toBe("2e-2e");
    expect(sanitizeRoleId("..")).toBe("");
  });

  it("refuses an existing id unless overwrite is set", async () => {
    await lib.importRole({ content: claude, file_name: "bug-hunter.md" });
    const changed = claude.replace("Finds bugs", "Finds more bugs");
    await expectReject(lib.importRole({ content: changed, file_name: "bug-hunter.md" }), ConflictError);
    const replaced = await lib.importRole({ content: changed, file_name: "bug-hunter.md", overwrite: true });
    expect(replaced.fields.description).toBe("Finds more bugs");
  });

  it("refuses content that does not load, with the line", async () => {
    const error = await expectReject(
      lib.importRole({ content: "---\nname: a\n  bad: [\n---\n", file_name: "a.md" }),
      ValidationError,
    );
    expect(error.details).toEqual([expect.objectContaining({ path: "content", line: expect.any(Number) })]);
    await expectReject(lib.importRole({ content: "---\ndescription: D\n---\n", file_name: "..." }), ValidationError);
    expect(await fs.readdir(dir)).toEqual([]);
  });
});

describe("RoleLibrary.seedFromRepo and the product's roles", () => {
  it("copies the product roles into an empty (or missing) roles folder, once", async () => {
    const fresh = newRoleLibrary(path.join(root, "fresh", "agents"));
    const copied = await fresh.seedFromRepo(REPO_AGENTS);
    expect(copied).toEqual(expect.arrayContaining(["ui-operator", "full-stack-engineer", "code-reviewer", "researcher"]));
    for (const id of copied) {
      expect(await fs.readFile(path.join(root, "fresh", "agents", `${id}.md`), "utf8")).toBe(
        await fs.readFile(path.join(REPO_AGENTS, `${id}.md`), "utf8"),
      );
    }
    expect(await fresh.seedFromRepo(REPO_AGENTS)).toEqual([]);
  });

  it("lists what each role's agents are given: the shipped roles by permissions, Claude Code roles by tools:", async () => {
    await lib.seedFromRepo(REPO_AGENTS);
    await write("reader.md", "---\nname: Reader\ndescription: Reads.\ntools: Read, Grep, Glob\n---\n");
    await write("editor.md", "---\nname: Editor\ndescription: Edits.\ntools: Edit, Write\n---\n");
    await write("web.md", "---\nname: Web\ndescription: Browses.\ntools: WebFetch\npermissions: [read, write]\n---\n");
    await write("plain.md", "---\nname: Plain\ndescription: No permissions key.\n---\n");
    const access = new Map((await lib.list()).flatMap((e) => (e.kind === "role" ? [[e.id, e.access] as const] : [])));
    const READ = ["list_files", "read_file", "search_files"];
    expect(access.get("code-reviewer")).toEqual({ permissions: ["read"], project_tools: READ });
    expect(access.get("ui-operator")).toEqual({ permissions: ["read", "write"], project_tools: [...READ, "write_file"] });
    expect(access.get("full-stack-engineer")).toEqual({ permissions: ["read", "write", "execute"], project_tools: [...READ, "write_file", "run_command"] });
    expect(access.get("reader")).toEqual({ permissions: ["read"], project_tools: READ });
    expect(access.get("editor")).toEqual({ permissions: ["write"], project_tools: ["write_file"] });
    // tools: alone decides: permissions: written beside it give nothing
    expect(access.get("web")).toEqual({ permissions: [], project_tools: [] });
    // no permissions: key reads by default, as the runtime does
    expect(access.get("plain")).toEqual({ permissions: ["read"], project_tools: READ });
  });

  it("does nothing when the user has any role file, even a broken one", async () => {
    await write("mine.md", "not a role at all");
    expect(await lib.seedFromRepo(REPO_AGENTS)).toEqual([]);
    expect(await fs.readdir(dir)).toEqual(["mine.md"]);
  });

  it("ships roles that parse with capabilities, permissions and a real prompt", async () => {
    const files = (await fs.readdir(REPO_AGENTS)).filter((f) => f.endsWith(".md"));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const detail = parseRoleFile(file, await fs.readFile(path.join(REPO_AGENTS, file)));
      expect(detail.kind, file).toBe("role");
      if (detail.kind !== "role") continue;
      expect(detail.warnings).toEqual([]);
      expect(detail.fields.model).toBeUndefined();
      expect(detail.fields.thinking_mode).toBeDefined();
      expect(detail.fields.capabilities?.length).toBeGreaterThanOrEqual(4);
      expect(detail.fields.permissions).toContain("read");
      const bodyLines = detail.body.trim().split("\n").length;
      expect(bodyLines).toBeGreaterThanOrEqual(30);
      expect(bodyLines).toBeLessThanOrEqual(80);
      for (const tool of ["list_files", "read_file", "search_files", "ask_master", "report_to_leader"]) {
        expect(detail.body, `${file} mentions ${tool}`).toContain(tool);
      }
      expect(detail.body).not.toMatch(/\bTBD\b|\[insert|<your [a-z ]+>|\.\.\.$/im);
      const writes = detail.fields.permissions?.includes("write");
      expect(detail.body.includes("`write_file`"), file).toBe(Boolean(writes));
    }
    const byId = async (id: string) => parseRoleFile(`${id}.md`, await fs.readFile(path.join(REPO_AGENTS, `${id}.md`)));
    expect(await byId("code-reviewer")).toMatchObject({
      fields: {
        name: "Code Reviewer",
        permissions: ["read"],
        capabilities: ["code-review", "diff-analysis", "security-review", "python", "typescript", "testing"],
      },
    });
    expect(await byId("researcher")).toMatchObject({ fields: { permissions: ["read"] } });
    expect(await byId("ui-operator")).toMatchObject({ fields: { name: "UI Operator", permissions: ["read", "write"] } });
    // The engineers may run commands (each asks a person first, the default for run_command).
    expect(await byId("full-stack-engineer")).toMatchObject({ fields: { permissions: ["read", "write", "execute"] } });
    expect(await byId("test-engineer")).toMatchObject({ fields: { permissions: ["read", "write", "execute"] } });
  });
});

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveProjectPath, WorkspaceError } from "./resolve";
import { protectedAncestor, ProtectedFolders } from "./protected";
import { FileQueues } from "@/lib/store/atomic";
import { Workspace } from "./workspace";

// One process's protected folders and workspace, as the composition root makes them.
const folders = new ProtectedFolders();
const ws = new Workspace({ protectedFolders: folders, queues: new FileQueues() });

let base: string;
let proj: string;
let data: string;
let app: string;

/**
 * Defence in depth: the project folder CONTAINS Astrion's own folders (as when the data folder
 * was moved into it after the conversation was created). The workspace tools must act as if
 * they were not there.
 *
 * <base>/proj
 *   src/a.ts                                   NEEDLE (an ordinary file)
 *   .astrion/astrion/host/mutiagents/          the data folder (protected)
 *     models.json, agents/researcher.md, conversations/c1/metadata.json   (all with NEEDLE)
 *   .astrion/astrion/host/mutiagents-evil/x.txt  (shares the prefix: ordinary)
 *   app/code.js                                the app folder (protected)
 *   link-data   -> .astrion/astrion/host/mutiagents      (a folder link into it)
 *   link-host   -> .astrion/astrion/host                 (a link to its parent)
 *   link-models -> .astrion/astrion/host/mutiagents/models.json (a file link into it)
 * <base>/alias-data -> <proj>/.astrion/astrion/host/mutiagents (a project root reached by a link)
 */
beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "astrion-protected-")));
  proj = path.join(base, "proj");
  data = path.join(proj, ".astrion", "astrion", "host", "mutiagents");
  app = path.join(proj, "app");
  await fs.mkdir(path.join(proj, "src"), { recursive: true });
  await fs.mkdir(path.join(data, "agents"), { recursive: true });
  await fs.mkdir(path.join(data, "conversations", "c1"), { recursive: true });
  await fs.mkdir(`${data}-evil`);
  await fs.mkdir(app);
  await fs.writeFile(path.join(proj, "src", "a.ts"), "export const NEEDLE = 1;\n");
  await fs.writeFile(path.join(data, "models.json"), '{"NEEDLE": "models"}\n');
  await fs.writeFile(path.join(data, "agents", "researcher.md"), "---\nid: researcher\npermissions: [read]\n---\nNEEDLE\n");
  await fs.writeFile(path.join(data, "conversations", "c1", "metadata.json"), '{"project_path": "/tmp/p", "NEEDLE": 1}\n');
  await fs.writeFile(path.join(`${data}-evil`, "x.txt"), "NEEDLE evil\n");
  await fs.writeFile(path.join(app, "code.js"), "// NEEDLE code\n");
  await fs.symlink(path.join(".astrion", "astrion", "host", "mutiagents"), path.join(proj, "link-data"));
  await fs.symlink(path.join(".astrion", "astrion", "host"), path.join(proj, "link-host"));
  await fs.symlink(path.join(".astrion", "astrion", "host", "mutiagents", "models.json"), path.join(proj, "link-models"));
  await fs.symlink(data, path.join(base, "alias-data"));
  folders.protect({ kind: "data", path: data });
  folders.protect({ kind: "app", path: app });
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** Every file and folder under `dir`, with its contents, to prove nothing changed. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = entry.isFile() ? await fs.readFile(full, "utf8") : "<dir>";
  }
  return out;
}

const INTO_DATA = [
  ".astrion/astrion/host/mutiagents",
  ".astrion/astrion/host/mutiagents/",
  ".astrion/astrion/host/mutiagents/models.json",
  "./.astrion/astrion/host/mutiagents/models.json",
  ".astrion//astrion/host/mutiagents/./agents/researcher.md",
  ".astrion/./astrion/./host/./mutiagents/conversations/c1/metadata.json",
  "link-data",
  "link-data/models.json",
  "./link-data//conversations/c1/metadata.json",
  "link-models",
  "link-host/mutiagents/agents/researcher.md",
  "link-host/mutiagents",
  "app",
  "app/code.js",
];

describe("Astrion's own folders inside a project", () => {
  it("registers them by real path and identity", () => {
    expect(folders.list().map((r) => [r.kind, r.real])).toEqual([
      ["data", data],
      ["app", app],
    ]);
    expect(folders.list().every((r) => r.id !== null)).toBe(true);
  });

  it.each(INTO_DATA)("refuses to resolve %j for reading or writing", async (requested) => {
    for (const forWrite of [false, true]) {
      const error = await resolveProjectPath(folders, proj, requested, { forWrite }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, `${requested} forWrite=${forWrite}`).toBeInstanceOf(WorkspaceError);
      expect((error as WorkspaceError).reason).toBe("app_data");
      // The refusal names the path as written, never where it really leads.
      expect((error as WorkspaceError).message).not.toContain(base);
    }
  });

  it("read_file refuses every way in", async () => {
    for (const requested of INTO_DATA.filter((p) => !p.endsWith("mutiagents") && !p.endsWith("/") && p !== "link-data" && p !== "app")) {
      await expect(ws.readFile(proj, requested), requested).rejects.toMatchObject({ reason: "app_data", code: "forbidden" });
    }
  });

  it("write_file refuses every way in and changes nothing there, not even a new file or folder", async () => {
    const before = await tree(data);
    const appBefore = await tree(app);
    const attempts = [
      ...INTO_DATA,
      ".astrion/astrion/host/mutiagents/new.json",
      ".astrion/astrion/host/mutiagents/agents/new-role.md",
      "link-data/new/deep/file.json",
      "link-host/mutiagents/models.json",
      "app/new.js",
    ];
    for (const requested of attempts) {
      await expect(ws.writeFile(proj, requested, '{"project_path": "/"}'), requested).rejects.toBeInstanceOf(WorkspaceError);
    }
    expect(await tree(data)).toEqual(before);
    expect(await tree(app)).toEqual(appBefore);
  });

  it("list_files never shows them or anything in them, at any depth or through any link", async () => {
    const listing = await ws.listFiles(proj, ".", { depth: 5 });
    const paths = listing.entries.map((e) => e.path);
    expect(paths).toContain("src/a.ts");
    expect(paths).toContain(".astrion/astrion/host");
    expect(paths).toContain(".astrion/astrion/host/mutiagents-evil/x.txt");
    expect(paths).toContain("link-host"); // a link to an ordinary folder stays listed
    for (const p of paths) {
      expect(p, p).not.toMatch(/mutiagents($|\/)/);
      expect(p, p).not.toMatch(/^app($|\/)/);
      expect(["link-data", "link-models"], p).not.toContain(p);
    }
    const host = await ws.listFiles(proj, "link-host");
    expect(host.entries.map((e) => e.path)).toEqual([".astrion/astrion/host/mutiagents-evil"]);
    await expect(ws.listFiles(proj, "link-data")).rejects.toMatchObject({ reason: "app_data" });
    await expect(ws.listFiles(proj, ".astrion/astrion/host/mutiagents")).rejects.toMatchObject({ reason: "app_data" });
  });

  it("search_files never finds anything in them", async () => {
    const all = await ws.searchFiles(proj, "NEEDLE");
    expect(all.matches.map((m) => m.path).sort()).toEqual([".astrion/astrion/host/mutiagents-evil/x.txt", "src/a.ts"]);
    expect((await ws.searchFiles(proj, "NEEDLE", { path: ".astrion" })).matches.map((m) => m.path)).toEqual([".astrion/astrion/host/mutiagents-evil/x.txt"]);
    expect((await ws.searchFiles(proj, "NEEDLE", { path: "link-host" })).matches).toHaveLength(1);
    await expect(ws.searchFiles(proj, "NEEDLE", { path: "link-data" })).rejects.toMatchObject({ reason: "app_data" });
    await expect(ws.searchFiles(proj, "NEEDLE", { path: "app/code.js" })).rejects.toMatchObject({ reason: "app_data" });
  });

  it("leaves a folder that only shares the data folder's name prefix alone", async () => {
    expect((await ws.readFile(proj, ".astrion/astrion/host/mutiagents-evil/x.txt")).content).toBe("NEEDLE evil\n");
    await ws.writeFile(proj, ".astrion/astrion/host/mutiagents-evil/y.txt", "ok");
    expect(await fs.readFile(path.join(`${data}-evil`, "y.txt"), "utf8")).toBe("ok");
  });

  it("refuses everything when the project folder itself is in a protected folder, however it is named", async () => {
    for (const root of [data, path.join(data, "conversations"), path.join(base, "alias-data"), `${data}/./agents/`, app]) {
      await expect(ws.listFiles(root, "."), root).rejects.toMatchObject({ reason: "app_data" });
      await expect(ws.readFile(root, "models.json"), root).rejects.toMatchObject({ reason: "app_data" });
      await expect(ws.writeFile(root, "x.json", "{}"), root).rejects.toMatchObject({ reason: "app_data" });
      await expect(ws.searchFiles(root, "NEEDLE"), root).rejects.toMatchObject({ reason: "app_data" });
    }
    expect(protectedAncestor(path.join(data, "conversations", "c1"), folders.list())).toMatchObject({ kind: "data" });
    expect(protectedAncestor(path.join(proj, "src"), folders.list())).toBeUndefined();
  });

  it("protects a folder that does not exist yet by its name, and creates nothing there", async () => {
    // another server's registry: this one's folders, and a data folder not made yet
    const others = new ProtectedFolders();
    for (const r of folders.list()) others.protect({ kind: r.kind, path: r.path });
    others.protect({ kind: "data", path: path.join(proj, "later", "data") });
    const other = new Workspace({ protectedFolders: others, queues: new FileQueues() });
    await expect(other.writeFile(proj, "later/data/models.json", "{}")).rejects.toMatchObject({ reason: "app_data" });
    await expect(fs.stat(path.join(proj, "later"))).rejects.toMatchObject({ code: "ENOENT" });
    // The folder beside it is ordinary.
    await other.writeFile(proj, "later/other/x.json", "{}");
  });

  it("refuses only what its own registry protects: a workspace of a fresh registry (another process) starts with none", async () => {
    const fresh = new Workspace({ protectedFolders: new ProtectedFolders(), queues: new FileQueues() });
    expect(fresh.protectedFolders.list()).toEqual([]);
    expect((await fresh.readFile(proj, ".astrion/astrion/host/mutiagents/models.json")).content).toContain("NEEDLE");
    await expect(ws.readFile(proj, ".astrion/astrion/host/mutiagents/models.json")).rejects.toMatchObject({ reason: "app_data" });
  });
});

describe("ProtectedFolders.with", () => {
  it("takes a folder registered at boot as it was resolved then, and resolves any other now", async () => {
    const registered = folders.list().find((r) => r.kind === "data")!;
    // The registered data folder, given again: the boot-time description, no new resolution (a
    // link put in its place since is not followed; the workspace never resolves it per call).
    const moved = path.join(base, "moved-data");
    await fs.rename(data, moved);
    await fs.symlink(path.join(base, "proj", "src"), data);
    try {
      const same = folders.with([{ kind: "data", path: data }]);
      expect(same.filter((r) => r.kind === "data")).toEqual([registered]);
      // Another folder is resolved now: through the link, to where it points.
      const other = folders.with([{ kind: "data", path: path.join(base, "alias-data") }]);
      expect(other.map((r) => r.real)).toContain(path.join(base, "proj", "src"));
      expect(other).toHaveLength(folders.list().length + 1);
    } finally {
      await fs.rm(data);
      await fs.rename(moved, data);
    }
  });
});

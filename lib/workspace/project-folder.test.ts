import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { assertProjectFolder, checkProjectFolder, confirmProjectFolder, type ProjectFolderCheck } from "./project-folder";
import { ProtectedFolders } from "./protected";

let base: string; // real path of the temp folder
let data: string; // the data folder these tests protect

/**
 * <base>/data/conversations      the data folder
 * <base>/data-evil               shares the data folder's prefix
 * <base>/proj                    an ordinary project
 * <base>/file.txt
 * <base>/links/to-root -> /
 * <base>/links/to-data -> <base>/data
 * <base>/links/to-base -> <base> (contains the data folder)
 */
beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "astrion-pf-")));
  data = path.join(base, "data");
  await fs.mkdir(path.join(data, "conversations"), { recursive: true });
  await fs.mkdir(path.join(base, "data-evil"));
  await fs.mkdir(path.join(base, "proj"));
  await fs.mkdir(path.join(base, "links"));
  await fs.writeFile(path.join(base, "file.txt"), "x");
  await fs.symlink("/", path.join(base, "links", "to-root"));
  await fs.symlink(data, path.join(base, "links", "to-data"));
  await fs.symlink(base, path.join(base, "links", "to-base"));
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

// A fresh process's registry for every test: nothing is protected until a test says so.
let folders: ProtectedFolders;
beforeEach(() => {
  folders = new ProtectedFolders();
});

const withData = () => [{ kind: "data" as const, path: data }];

function reasonOf(check: ProjectFolderCheck): string | null {
  return check.ok ? null : check.reason;
}

describe("checkProjectFolder", () => {
  it.each([
    ["/", "filesystem_root"],
    ["//", "filesystem_root"],
    ["/./", "filesystem_root"],
    ["/tmp/../", "filesystem_root"],
    ["/proc/self/root", "filesystem_root"],
    ["/proc/self/root/", "filesystem_root"],
    ["/proc/self/root/proc/self/root/tmp/..", "filesystem_root"],
    ["/etc", "system_folder"],
    ["/etc/", "system_folder"],
    ["//etc//", "system_folder"],
    ["/proc", "system_folder"],
    ["/proc/self/root/etc", "system_folder"],
    ["/sys", "system_folder"],
    ["/dev", "system_folder"],
    ["/usr", "system_folder"],
    ["/usr/lib", "system_folder"],
    ["/var", "system_folder"],
  ])("refuses %j: %s", async (candidate, reason) => {
    expect(reasonOf(await checkProjectFolder(folders, candidate, withData()))).toBe(reason);
  });

  it("refuses symlinks to the root and to system folders (real paths are compared)", async () => {
    expect(reasonOf(await checkProjectFolder(folders, path.join(base, "links", "to-root"), withData()))).toBe("filesystem_root");
    expect(reasonOf(await checkProjectFolder(folders, path.join(base, "links", "to-root", "etc"), withData()))).toBe("system_folder");
    expect(reasonOf(await checkProjectFolder(folders, `${path.join(base, "links", "to-root")}/./`, withData()))).toBe("filesystem_root");
  });

  it("refuses the data folder, any folder inside it and any folder containing it, by any name", async () => {
    const cases: Array<[string, string]> = [
      [data, "inside_data_folder"],
      [`${data}/`, "inside_data_folder"],
      [`${data}//conversations/./`, "inside_data_folder"],
      [path.join(data, "conversations"), "inside_data_folder"],
      [path.join(base, "links", "to-data"), "inside_data_folder"],
      [path.join(base, "links", "to-data", "conversations"), "inside_data_folder"],
      [`${base}/proj/../data`, "inside_data_folder"],
      [base, "contains_data_folder"],
      [`${base}/`, "contains_data_folder"],
      [path.join(base, "links", "to-base"), "contains_data_folder"],
      [path.dirname(base), "contains_data_folder"],
    ];
    for (const [candidate, reason] of cases) {
      const check = await checkProjectFolder(folders, candidate, withData());
      expect(reasonOf(check), candidate).toBe(reason);
      if (!check.ok) expect(check.folder, candidate).toBe(data);
    }
  });

  it("refuses a differently-cased name of the data folder one way or another", async () => {
    // Linux disks are case-sensitive (the name does not exist); on a case-insensitive disk the
    // folder's identity gives it away.
    expect((await checkProjectFolder(folders, path.join(base, "DATA"), withData())).ok).toBe(false);
  });

  it("accepts a project folder beside the data folder, one sharing its prefix, and the temp folder itself", async () => {
    const ok = await checkProjectFolder(folders, `${base}/proj/`, withData());
    expect(ok).toEqual({ ok: true, path: path.join(base, "proj"), real: path.join(base, "proj") });
    expect((await checkProjectFolder(folders, path.join(base, "data-evil"), withData())).ok).toBe(true);
    expect((await checkProjectFolder(folders, os.tmpdir(), [])).ok).toBe(true);
  });

  it("checks a folder (as before every tool call) without a trip through the thread pool", async () => {
    const spies = (["stat", "lstat", "realpath", "open", "readdir", "access"] as const).map((name) => vi.spyOn(fs, name));
    try {
      expect((await checkProjectFolder(folders, `${base}/proj/`, withData())).ok).toBe(true);
      expect((await checkProjectFolder(folders, path.join(base, "DATA"), withData())).ok).toBe(false);
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("keeps the path as written (not its real path) for metadata.json", async () => {
    await fs.symlink(path.join(base, "proj"), path.join(base, "links", "to-proj"));
    const ok = await checkProjectFolder(folders, path.join(base, "links", "to-proj"), withData());
    expect(ok).toMatchObject({ ok: true, path: path.join(base, "links", "to-proj"), real: path.join(base, "proj") });
  });

  it("refuses what is not an existing absolute folder, with its own reason", async () => {
    expect(reasonOf(await checkProjectFolder(folders, "", withData()))).toBe("required");
    expect(reasonOf(await checkProjectFolder(folders, "   ", withData()))).toBe("required");
    expect(reasonOf(await checkProjectFolder(folders, 42, withData()))).toBe("required");
    expect(reasonOf(await checkProjectFolder(folders, "relative/path", withData()))).toBe("not_absolute");
    expect(reasonOf(await checkProjectFolder(folders, "~/proj", withData()))).toBe("not_absolute");
    expect(reasonOf(await checkProjectFolder(folders, `${base}/proj\0`, withData()))).toBe("invalid");
    expect(reasonOf(await checkProjectFolder(folders, `/${"a".repeat(5000)}`, withData()))).toBe("invalid");
    expect(reasonOf(await checkProjectFolder(folders, path.join(base, "missing"), withData()))).toBe("not_found");
    expect(reasonOf(await checkProjectFolder(folders, path.join(base, "file.txt"), withData()))).toBe("not_a_folder");
    expect(reasonOf(await checkProjectFolder(folders, path.join(base, "file.txt", "x"), withData()))).toBe("not_found");
  });

  it("protects a data folder that does not exist yet, by name", async () => {
    const later = path.join(base, "proj", "later", "data");
    expect(await checkProjectFolder(folders, path.join(base, "proj"), [{ kind: "data", path: later }])).toMatchObject({ ok: false, reason: "contains_data_folder", folder: later });
  });

  it("protects the folders registered in its ProtectedFolders without being told again, and only those", async () => {
    expect((await checkProjectFolder(folders, base)).ok).toBe(true);
    folders.protect({ kind: "data", path: data });
    folders.protect({ kind: "app", path: path.join(base, "proj") });
    expect(reasonOf(await checkProjectFolder(folders, base))).toBe("contains_data_folder");
    expect(reasonOf(await checkProjectFolder(folders, path.join(base, "proj")))).toBe("inside_app_folder");
    expect((await checkProjectFolder(folders, path.join(base, "data-evil"))).ok).toBe(true);
    // another server's registry (another process, another test) starts empty: nothing to reset
    expect((await checkProjectFolder(new ProtectedFolders(), base)).ok).toBe(true);
  });
});

describe("assertProjectFolder", () => {
  it("returns the path to keep, or throws a ValidationError with a stable reason", async () => {
    expect(await assertProjectFolder(folders, ` ${base}/proj/ `, withData())).toBe(path.join(base, "proj"));
    const error = await assertProjectFolder(folders, base, withData()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details).toEqual([
      { path: "project_path", reason: "contains_data_folder", folder: data, message: expect.stringContaining("ASTRION_HOME") },
    ]);
  });
});

describe("confirmProjectFolder", () => {
  it("accepts the folder a run started with while metadata.json still names it", async () => {
    const proj = path.join(base, "proj");
    expect(await confirmProjectFolder(folders, proj, null, withData())).toMatchObject({ ok: true, path: proj });
    expect(await confirmProjectFolder(folders, `${proj}/`, proj, withData())).toMatchObject({ ok: true, path: proj });
  });

  it("refuses when metadata.json names another folder than the run started with", async () => {
    const proj = path.join(base, "proj");
    for (const forged of ["/", "/etc", path.join(base, "data-evil"), "relative", 42, ""]) {
      expect(await confirmProjectFolder(folders, forged, proj, withData()), String(forged)).toMatchObject({ ok: false, reason: "project_changed", path: proj });
    }
  });

  it("refuses the run's own folder once it no longer passes the rules (a symlink re-pointed)", async () => {
    const link = path.join(base, "links", "swap");
    await fs.symlink(path.join(base, "proj"), link);
    expect((await confirmProjectFolder(folders, link, link, withData())).ok).toBe(true);
    await fs.rm(link);
    await fs.symlink(base, link);
    expect(await confirmProjectFolder(folders, link, link, withData())).toMatchObject({ ok: false, reason: "contains_data_folder" });
    await fs.rm(link);
    await fs.symlink("/", link);
    expect(await confirmProjectFolder(folders, link, link, withData())).toMatchObject({ ok: false, reason: "filesystem_root" });
  });
});

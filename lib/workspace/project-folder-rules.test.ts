import { describe, expect, it } from "vitest";
import { PROJECT_FOLDER_REFUSALS } from "@/lib/contracts/project-folder";
import { isFilesystemRoot, isInsideRoot, projectFolderMessage, projectFolderRefusal, SYSTEM_FOLDERS, SYSTEM_TREES, type ProtectedFolder } from "./project-folder-rules";

const DATA = "/home/me/.astrion/astrion/host/mutiagents";
const APP = "/opt/astrion";
const protectedFolders: ProtectedFolder[] = [
  { kind: "data", real: DATA },
  { kind: "app", real: APP },
];

function verdict(name: string | string[], home: string | null = "/home/me") {
  return projectFolderRefusal({ names: Array.isArray(name) ? name : [name], home, protectedFolders });
}

describe("isInsideRoot", () => {
  it.each([
    ["/data", "/data", true],
    ["/data", "/data/x", true],
    ["/data", "/data-evil", false],
    ["/data", "/datax/y", false],
    ["/data/", "/data/x", true],
    ["/", "/anything", true],
    ["/a/b", "/a", false],
  ])("%s holds %s: %s", (root, candidate, expected) => {
    expect(isInsideRoot(root, candidate, "/")).toBe(expected);
  });
});

describe("projectFolderRefusal", () => {
  it("refuses the root of the file system", () => {
    expect(verdict("/")).toEqual({ reason: "filesystem_root" });
    expect(isFilesystemRoot("/")).toBe(true);
    expect(isFilesystemRoot("/tmp")).toBe(false);
  });

  it.each([
    [DATA, "inside_data_folder"],
    [`${DATA}/conversations`, "inside_data_folder"],
    [`${DATA}/conversations/conv_20260101_000000_001/agents`, "inside_data_folder"],
    ["/home/me", "contains_data_folder"],
    ["/home/me/.astrion", "contains_data_folder"],
    ["/home/me/.astrion/astrion/host", "contains_data_folder"],
    [APP, "inside_app_folder"],
    [`${APP}/server`, "inside_app_folder"],
  ] as const)("refuses %s: %s", (name, reason) => {
    expect(verdict(name)?.reason).toBe(reason);
  });

  it("names the protected folder concerned", () => {
    expect(verdict("/home/me")).toEqual({ reason: "contains_data_folder", folder: DATA });
    expect(verdict(`${APP}/lib`)).toEqual({ reason: "inside_app_folder", folder: APP });
    // A folder holding the program (its own checkout, a home folder) is a fine project: the tools hide the program there.
    expect(projectFolderRefusal({ names: ["/srv/apps/astrion"], home: null, protectedFolders: [{ kind: "app", real: "/srv/apps/astrion/.next" }] })).toBeNull();
  });

  it("does not confuse a folder that only shares a prefix with a protected one", () => {
    expect(verdict(`${DATA}-evil`)).toBeNull();
    expect(verdict("/home/me/.astrion-other")).toBeNull();
    expect(verdict(`${APP}-projects/site`)).toBeNull();
  });

  it("accepts ordinary project folders, the temp folder and folders beside the data folder", () => {
    for (const ok of ["/home/me/code/site", "/home/me/.astrion-notes", "/tmp", "/tmp/astrion-project-1", "/var/www/site", "/var/tmp/x", "/usr/local/src/tool", "/opt/tools", "/srv/git/repo", "/mnt/c/Users/me/proj", "/Users/me/dev/app", "/private/var/folders/xy/T/proj"]) {
      expect(verdict(ok), ok).toBeNull();
    }
  });

  it.each(["/proc", "/proc/1/cwd", "/sys/kernel", "/dev", "/dev/shm", "/etc", "/etc/ssh", "/boot", "/bin", "/sbin", "/lib", "/lib64", "/usr/lib/python3", "/usr/bin", "/usr/share/doc", "/run", "/run/user/1000", "/var/lib/docker", "/var/log", "/System/Library", "/Library/Preferences", "/private/etc", "/nix/store/abc"])(
    "refuses the system folder %s and anything inside it",
    (name) => {
      expect(verdict(name)).toEqual({ reason: "system_folder" });
    },
  );

  it.each(["/usr", "/usr/local", "/var", "/opt", "/srv", "/mnt", "/media", "/home", "/Users", "/Volumes", "/private", "/private/var"])("refuses the shared folder %s itself", (name) => {
    expect(projectFolderRefusal({ names: [name], home: null, protectedFolders: [] })).toEqual({ reason: "system_folder" });
  });

  it("judges system folders without regard to case", () => {
    expect(verdict("/ETC")).toEqual({ reason: "system_folder" });
    expect(verdict("/Proc/self")).toEqual({ reason: "system_folder" });
    expect(projectFolderRefusal({ names: ["/HOME"], home: null, protectedFolders: [] })).toEqual({ reason: "system_folder" });
  });

  it("refuses /root unless it is the person's own home", () => {
    expect(verdict("/root")).toEqual({ reason: "system_folder" });
    expect(verdict("/root/project")).toEqual({ reason: "system_folder" });
    expect(projectFolderRefusal({ names: ["/root/project"], home: "/root", protectedFolders: [] })).toBeNull();
    expect(projectFolderRefusal({ names: ["/root"], home: "/root", protectedFolders: [] })).toBeNull();
  });

  it("judges every name of the folder (aliases found on disk)", () => {
    // A bind mount of the data folder, or of the whole disk, seen under an innocent name.
    expect(verdict(["/tmp/innocent", DATA])?.reason).toBe("inside_data_folder");
    expect(verdict(["/tmp/rootbind", "/"])?.reason).toBe("filesystem_root");
    expect(verdict(["/tmp/etcbind", "/etc"])?.reason).toBe("system_folder");
  });

  it("normalizes names before judging them", () => {
    expect(verdict("//")?.reason).toBe("filesystem_root");
    expect(verdict("/./")?.reason).toBe("filesystem_root");
    expect(verdict(`${DATA}/`)?.reason).toBe("inside_data_folder");
    expect(verdict(`${DATA}/./agents/`)?.reason).toBe("inside_data_folder");
  });

  it("puts the data folder's reason before the system one (it says how to fix it)", () => {
    expect(projectFolderRefusal({ names: ["/home"], home: "/home/me", protectedFolders })).toEqual({ reason: "contains_data_folder", folder: DATA });
  });

  it("keeps the system lists absolute and free of the temp folder", () => {
    for (const p of [...SYSTEM_TREES, ...SYSTEM_FOLDERS]) expect(p.startsWith("/"), p).toBe(true);
    expect([...SYSTEM_TREES, ...SYSTEM_FOLDERS]).not.toContain("/tmp");
  });
});

describe("projectFolderMessage", () => {
  it("has a plain explanation for every reason", () => {
    const texts = PROJECT_FOLDER_REFUSALS.map((reason) => projectFolderMessage({ reason, folder: DATA }, "/x"));
    expect(new Set(texts).size).toBe(PROJECT_FOLDER_REFUSALS.length);
    for (const t of texts) expect(t.length).toBeGreaterThan(10);
  });

  it("tells how to fix a folder that contains the data folder", () => {
    const text = projectFolderMessage({ reason: "contains_data_folder", folder: DATA }, "/home/me");
    expect(text).toContain(DATA);
    expect(text).toContain("ASTRION_HOME");
    expect(text).toMatch(/could change Astrion's settings/);
  });
});

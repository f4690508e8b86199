import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RoleLibrary } from "./library";
import { newRoleLibrary } from "@/test/helpers/role-library";

let root: string;
let dir: string;
let lib: RoleLibrary;

const role = (id: string, description: string) => `---\nid: ${id}\nname: ${id} Role\ndescription: ${description}\ncapabilities: [research]\n---\nPrompt\n`;

/** Polls `read` until `done` holds (a watch event is delivered through the event loop). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the library never saw the change");
}

const descriptions = async () => (await lib.list()).map((e) => (e.kind === "role" ? `${e.id}:${e.description}` : `${e.id}:error`));

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-role-cache-"));
  dir = path.join(root, "agents");
  await fs.mkdir(dir);
  await fs.writeFile(path.join(dir, "alpha.md"), role("alpha", "first"));
  await fs.writeFile(path.join(dir, "beta.md"), role("beta", "second"));
  lib = newRoleLibrary(dir);
});

afterEach(async () => {
  lib.close();
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

describe("RoleLibrary's folder cache", () => {
  it("reads each role file once while the folder does not change", async () => {
    const reads = vi.spyOn(fs, "readFile");
    await lib.list();
    const first = reads.mock.calls.length;
    expect(first).toBe(2);
    for (let i = 0; i < 20; i++) {
      await lib.list();
      await lib.get("alpha");
      await lib.get("beta");
    }
    expect(reads.mock.calls.length).toBe(first);
  });

  it("sees a file edited, added or deleted on disk behind its back", async () => {
    expect(await descriptions()).toEqual(["alpha:first", "beta:second"]);
    await fs.writeFile(path.join(dir, "alpha.md"), role("alpha", "edited in an editor"));
    await until(descriptions, (d) => d.includes("alpha:edited in an editor"));
    expect((await lib.get("alpha")).kind === "role" && (await lib.get("alpha")).raw).toContain("edited in an editor");
    await fs.writeFile(path.join(dir, "gamma.md"), role("gamma", "third"));
    await until(descriptions, (d) => d.includes("gamma:third"));
    await fs.rm(path.join(dir, "beta.md"));
    expect(await until(descriptions, (d) => !d.some((x) => x.startsWith("beta:")))).toEqual(["alpha:edited in an editor", "gamma:third"]);
    await expect(lib.get("beta")).rejects.toThrow(/No role "beta"/);
  });

  it("shows its own writes at once", async () => {
    await lib.list();
    await lib.create({ fields: { id: "delta", name: "delta Role", description: "made here", capabilities: [] }, body: "Prompt" } as never);
    expect(await descriptions()).toContain("delta:made here");
    await lib.update("alpha", { raw: role("alpha", "saved raw") } as never);
    expect(await descriptions()).toContain("alpha:saved raw");
    await lib.remove("beta");
    expect(await descriptions()).toEqual(["alpha:saved raw", "delta:made here"]);
  });

  it("follows the folder when it is replaced by another one", async () => {
    await lib.list();
    await fs.rename(dir, path.join(root, "old-agents"));
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, "omega.md"), role("omega", "new folder"));
    await until(descriptions, (d) => d.length === 1 && d[0] === "omega:new folder");
    // The watch is on the new folder now: an edit there is seen too.
    await fs.writeFile(path.join(dir, "omega.md"), role("omega", "edited again"));
    await until(descriptions, (d) => d[0] === "omega:edited again");
  });
});

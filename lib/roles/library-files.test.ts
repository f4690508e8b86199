/**
 * Role files whose name is no valid id: listed with a suggested id, opened, fixed, renamed and
 * deleted by their exact name, which must be one the folder lists (never a path built from a
 * request).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { RoleLibrary } from "./library";
import { newRoleLibrary } from "@/test/helpers/role-library";

let root: string;
let dir: string;
let lib: RoleLibrary;

const role = (name: string) => `---\nname: ${name}\ndescription: The ${name} role\ntools: Read, Bash\n---\nPrompt\n`;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-role-files-"));
  dir = path.join(root, "agents");
  await fs.mkdir(dir);
  lib = newRoleLibrary(dir);
  await fs.writeFile(path.join(dir, "Power Shell 5.1.md"), role("PowerShell"));
  await fs.writeFile(path.join(dir, "powershell-5.1-expert.md"), role("Expert"));
  await fs.writeFile(path.join(dir, "Reviewer.MD"), role("Reviewer"));
  await fs.writeFile(path.join(dir, "reviewer.md"), role("Lower reviewer"));
  await fs.writeFile(path.join(dir, "Broken One.md"), "no frontmatter\n");
});

afterEach(async () => {
  lib.close();
  await fs.rm(root, { recursive: true, force: true });
});

async function rejects(promise: Promise<unknown>, type: new (...args: never[]) => Error): Promise<Error> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error).toBeInstanceOf(type);
  return error!;
}

describe("misnamed role files", () => {
  it("are listed with a free suggested id; well-named files have none", async () => {
    const list = await lib.list();
    const byFile = Object.fromEntries(list.map((e) => [e.file, e]));
    expect(byFile["Power Shell 5.1.md"]).toMatchObject({ kind: "role", name: "PowerShell", suggested_id: "power-shell-5-1" });
    expect(byFile["powershell-5.1-expert.md"]).toMatchObject({ kind: "role", suggested_id: "powershell-5-1-expert" });
    // `reviewer` is taken by reviewer.md.
    expect(byFile["Reviewer.MD"]).toMatchObject({ kind: "role", suggested_id: "reviewer-2" });
    expect(byFile["Broken One.md"]).toMatchObject({ kind: "error", suggested_id: "broken-one" });
    expect(byFile["reviewer.md"]).not.toHaveProperty("suggested_id");
  });

  it("open, fix and delete by the exact listed name", async () => {
    const opened = await lib.getFile("Power Shell 5.1.md");
    expect(opened).toMatchObject({ kind: "role", file: "Power Shell 5.1.md", suggested_id: "power-shell-5-1", fields: { name: "PowerShell" } });
    const broken = await lib.getFile("Broken One.md");
    expect(broken.kind).toBe("error");
    const fixed = await lib.saveFile("Broken One.md", { etag: broken.etag, raw: role("Fixed") });
    expect(fixed).toMatchObject({ kind: "role", fields: { name: "Fixed" }, suggested_id: "broken-one" });
    expect(await fs.readFile(path.join(dir, "Broken One.md"), "utf8")).toBe(role("Fixed"));
    await rejects(lib.saveFile("Broken One.md", { etag: broken.etag, raw: role("Again") }), ConflictError);
    await rejects(lib.saveFile("Broken One.md", { raw: "still no frontmatter" }), ValidationError);
    await lib.removeFile("powershell-5.1-expert.md");
    await expect(fs.access(path.join(dir, "powershell-5.1-expert.md"))).rejects.toThrow();
    await rejects(lib.removeFile("powershell-5.1-expert.md"), NotFoundError);
  });

  it("renames to the suggested id, or a chosen one, and never overwrites", async () => {
    const renamed = await lib.renameFile({ file: "Power Shell 5.1.md" });
    expect(renamed).toMatchObject({ kind: "role", id: "power-shell-5-1", file: "power-shell-5-1.md", fields: { name: "PowerShell" } });
    expect(renamed).not.toHaveProperty("suggested_id");
    expect(await fs.readFile(path.join(dir, "power-shell-5-1.md"), "utf8")).toBe(role("PowerShell"));
    await expect(fs.access(path.join(dir, "Power Shell 5.1.md"))).rejects.toThrow();
    expect(await lib.get("power-shell-5-1")).toMatchObject({ kind: "role" });

    const conflict = await rejects(lib.renameFile({ file: "Reviewer.MD", id: "reviewer" }), ConflictError);
    expect(conflict.message).toMatch(/"reviewer" exists already/);
    expect(await fs.readFile(path.join(dir, "reviewer.md"), "utf8")).toBe(role("Lower reviewer"));
    expect(await fs.readFile(path.join(dir, "Reviewer.MD"), "utf8")).toBe(role("Reviewer"));
    expect(await lib.renameFile({ file: "Reviewer.MD", id: "senior-reviewer" })).toMatchObject({ id: "senior-reviewer" });
    await rejects(lib.renameFile({ file: "powershell-5.1-expert.md", id: "../escape" }), ValidationError);
  });

  it("refuses any name the folder does not list, so no request names another path", async () => {
    await fs.writeFile(path.join(root, "outside.md"), role("Outside"));
    await fs.writeFile(path.join(dir, ".hidden.md"), role("Hidden"));
    await fs.mkdir(path.join(dir, "sub.md"));
    await fs.symlink(path.join(root, "outside.md"), path.join(dir, "link.md"));
    for (const name of ["../outside.md", "..", ".hidden.md", "sub.md", "link.md", "missing.md", "%2e%2e/outside.md", "POWER SHELL 5.1.md"]) {
      await rejects(lib.getFile(name), name.includes("/") ? ValidationError : NotFoundError);
      await rejects(lib.saveFile(name, { raw: role("X") }), name.includes("/") ? ValidationError : NotFoundError);
      await rejects(lib.removeFile(name), name.includes("/") ? ValidationError : NotFoundError);
      await rejects(lib.renameFile({ file: name }), name.includes("/") ? ValidationError : NotFoundError);
    }
    for (const name of ["a/b.md", "a\\b.md", "a\u0000.md", "", "x".repeat(300)]) await rejects(lib.getFile(name), ValidationError);
    expect(await fs.readFile(path.join(root, "outside.md"), "utf8")).toBe(role("Outside"));
    expect(await fs.readFile(path.join(dir, ".hidden.md"), "utf8")).toBe(role("Hidden"));
  });

  it("are never offered by id", async () => {
    await rejects(lib.get("Power Shell 5.1"), ValidationError);
    await rejects(lib.get("Reviewer"), NotFoundError);
  });
});

describe("two renames that cross", () => {
  it("both finish (one of them refused), never waiting on each other", async () => {
    await fs.writeFile(path.join(dir, "x.md"), role("X"));
    await fs.writeFile(path.join(dir, "y.md"), role("Y"));
    const results = await Promise.allSettled([lib.renameFile({ file: "x.md", id: "y" }), lib.renameFile({ file: "y.md", id: "x" })]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    expect(await fs.readFile(path.join(dir, "x.md"), "utf8")).toBe(role("X"));
  });
});

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RoleLibrary } from "./library";
import { newRoleLibrary } from "@/test/helpers/role-library";
import { RoleListEntrySchema } from "./schema";

let lib: RoleLibrary | null = null;
afterEach(() => lib?.close());

describe("derived_capabilities on the role list", () => {
  it("lists derived tags for a role without capabilities, and none for a role that declares them", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-derived-"));
    await fs.writeFile(path.join(dir, "k8s.md"), "---\nname: k8s-architect\ndescription: Designs Kubernetes platforms with security in mind\n---\nBody\n");
    await fs.writeFile(path.join(dir, "tagged.md"), "---\nname: Tagged\ndescription: Kubernetes too\ncapabilities: [python]\n---\nBody\n");
    await fs.writeFile(path.join(dir, "plain.md"), "---\nname: Chef\ndescription: Cooks pasta\n---\nBody\n");
    lib = newRoleLibrary(dir);
    const list = await lib.list();
    for (const e of list) expect(RoleListEntrySchema.safeParse(e).success).toBe(true);
    const byId = new Map(list.map((e) => [e.id, e]));
    expect(byId.get("k8s")).toMatchObject({ capabilities: [], derived_capabilities: ["kubernetes", "architecture", "security-review"] });
    expect(byId.get("tagged")).toMatchObject({ capabilities: ["python"] });
    expect(byId.get("tagged")).not.toHaveProperty("derived_capabilities");
    expect(byId.get("plain")).toMatchObject({ capabilities: [], derived_capabilities: [] });
    // A changed description changes the derived tags.
    await fs.writeFile(path.join(dir, "k8s.md"), "---\nname: k8s-architect\ndescription: Tunes SQL queries\n---\nBody\n");
    lib.close();
    lib = newRoleLibrary(dir);
    const after = (await lib.list()).find((e) => e.id === "k8s");
    expect(after).toMatchObject({ derived_capabilities: ["kubernetes", "architecture", "sql", "database"] });
  });
});

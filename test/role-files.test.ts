/**
 * Role files whose name is no valid id, through the real server: listed with a suggested id,
 * opened, fixed, renamed (never over an existing role: 409) and deleted by their exact name;
 * a name the roles folder does not list never reaches the file system.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, tempDir, type TestServer } from "./helpers/server";

let server: TestServer;
let agents: string;

const role = (name: string) => `---\nname: ${name}\ndescription: The ${name} role\ntools: Read, Grep, Bash\n---\nPrompt\n`;
const fileUrl = (name: string) => `/api/role-files?name=${encodeURIComponent(name)}`;

beforeAll(async () => {
  const home = tempDir("astrion-home-");
  agents = path.join(home, "agents");
  mkdirSync(agents, { recursive: true });
  writeFileSync(path.join(agents, "reviewer.md"), role("Reviewer"));
  writeFileSync(path.join(home, "secret.md"), role("Outside"));
  server = await startServer({ home });
});

afterAll(async () => {
  await server?.stop();
});

describe("role files with any name", () => {
  it("lists, opens, fixes, renames and deletes them by their exact name", async () => {
    writeFileSync(path.join(agents, "Power Shell 5.1.md"), "---\nname: PowerShell\ndescription: broken: here\n---\nPrompt\n");
    writeFileSync(path.join(agents, "Delete Me.md"), role("Doomed"));

    const list = (await server.api("GET", "/api/roles")).json.roles as Array<Record<string, unknown>>;
    const power = list.find((r) => r.file === "Power Shell 5.1.md");
    expect(power).toMatchObject({ kind: "error", suggested_id: "power-shell-5-1", line: 3 });
    expect(list.find((r) => r.file === "Delete Me.md")).toMatchObject({ kind: "role", name: "Doomed", suggested_id: "delete-me" });
    expect(list.find((r) => r.file === "reviewer.md")).not.toHaveProperty("suggested_id");

    const opened = await server.api("GET", fileUrl("Power Shell 5.1.md"));
    expect(opened.status).toBe(200);
    expect(opened.json.role).toMatchObject({ kind: "error", file: "Power Shell 5.1.md", suggested_id: "power-shell-5-1" });

    const fixed = await server.api("PUT", fileUrl("Power Shell 5.1.md"), { etag: opened.json.role.etag, raw: role("PowerShell") });
    expect(fixed.status).toBe(200);
    expect(fixed.json.role).toMatchObject({ kind: "role", fields: { name: "PowerShell", tools: ["Read", "Grep", "Bash"] } });
    expect(readFileSync(path.join(agents, "Power Shell 5.1.md"), "utf8")).toBe(role("PowerShell"));
    // A stale etag is a conflict, not a lost edit.
    expect((await server.api("PUT", fileUrl("Power Shell 5.1.md"), { etag: opened.json.role.etag, raw: role("Other") })).status).toBe(409);

    const renamed = await server.api("POST", "/api/role-files/rename", { file: "Power Shell 5.1.md" });
    expect(renamed.status).toBe(200);
    expect(renamed.json.role).toMatchObject({ kind: "role", id: "power-shell-5-1", file: "power-shell-5-1.md" });
    expect(existsSync(path.join(agents, "Power Shell 5.1.md"))).toBe(false);
    expect((await server.api("GET", "/api/roles/power-shell-5-1")).json.role).toMatchObject({ kind: "role", fields: { name: "PowerShell" } });

    // A long prompt fits: the route has the roles' 1 MiB body limit, not the 16 KiB default.
    const long = `${role("Doomed")}${"é".repeat(100_000)}\n`;
    const bigSave = await server.api("PUT", fileUrl("Delete Me.md"), { raw: long });
    expect(bigSave.status).toBe(200);
    expect(readFileSync(path.join(agents, "Delete Me.md"), "utf8")).toBe(long);

    const deleted = await server.api("DELETE", fileUrl("Delete Me.md"));
    expect(deleted.status).toBe(200);
    expect(existsSync(path.join(agents, "Delete Me.md"))).toBe(false);
    expect((await server.api("GET", fileUrl("Delete Me.md"))).status).toBe(404);
  });

  it("refuses to rename over an existing role with a clear 409", async () => {
    writeFileSync(path.join(agents, "Reviewer Two.md"), role("Second"));
    const res = await server.api("POST", "/api/role-files/rename", { file: "Reviewer Two.md", id: "reviewer" });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: "conflict", message: expect.stringMatching(/"reviewer" exists already/) });
    expect(readFileSync(path.join(agents, "reviewer.md"), "utf8")).toBe(role("Reviewer"));
    expect(readFileSync(path.join(agents, "Reviewer Two.md"), "utf8")).toBe(role("Second"));
  });

  it("never lets a name the folder does not list reach the file system", async () => {
    for (const name of ["../secret.md", "..%2Fsecret.md", "/etc/passwd", "a\\..\\secret.md", "..", "secret.md", ".hidden.md", "reviewer"]) {
      for (const [method, url, body] of [
        ["GET", fileUrl(name), undefined],
        ["PUT", fileUrl(name), { raw: role("Pwned") }],
        ["DELETE", fileUrl(name), undefined],
        ["POST", "/api/role-files/rename", { file: name }],
      ] as const) {
        const res = await server.api(method, url, body);
        expect([400, 404], `${method} ${name}`).toContain(res.status);
        expect(res.json.error.code).toMatch(/^(validation_failed|not_found)$/);
      }
    }
    expect((await server.api("GET", "/api/role-files")).status).toBe(400);
    expect((await server.api("POST", "/api/role-files/rename", { file: "reviewer.md", id: "../x" })).status).toBe(400);
    expect(readFileSync(path.join(path.dirname(agents), "secret.md"), "utf8")).toBe(role("Outside"));
  });
});

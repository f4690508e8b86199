import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FileQueues } from "@/lib/store";
import { KEY_STORE_FILE, ModelKeyStore } from "./key-store";

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-keys-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

const file = () => path.join(root, KEY_STORE_FILE);

describe("ModelKeyStore", () => {
  it("stores a key in a file only its owner may read (0600), under a fresh id, and forgets it", async () => {
    const keys = new ModelKeyStore(root, new FileQueues());
    const ref = await keys.put("sk-typed-secret-1");
    expect(ref).toMatch(/^key_[0-9a-f]{24}$/);
    expect((await fs.stat(file())).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await fs.readFile(file(), "utf8"))).toEqual({ version: 1, keys: { [ref]: "sk-typed-secret-1" } });
    expect(await keys.has(ref)).toBe(true);
    expect(keys.peek(ref)).toBe("sk-typed-secret-1");
    await keys.put("sk-typed-secret-2", ref);
    expect(keys.peek(ref)).toBe("sk-typed-secret-2");
    await keys.remove(ref);
    expect(await keys.has(ref)).toBe(false);
    expect((await fs.stat(file())).mode & 0o777).toBe(0o600);
  });

  it("never reads back what it wrote, and reads a hand edit or removal at the next refresh", async () => {
    const keys = new ModelKeyStore(root, new FileQueues());
    const ref = await keys.put("sk-one");
    const reads = vi.spyOn(fs, "readFile");
    for (let i = 0; i < 5; i++) await keys.refresh();
    expect(reads.mock.calls.filter(([f]) => String(f).endsWith(KEY_STORE_FILE))).toHaveLength(0);
    await fs.writeFile(file(), JSON.stringify({ version: 1, keys: { [ref]: "sk-edited" } }), { mode: 0o644 });
    await fs.chmod(file(), 0o644);
    await keys.refresh();
    expect(keys.peek(ref)).toBe("sk-edited");
    // A file made looser by hand is tightened again.
    expect((await fs.stat(file())).mode & 0o777).toBe(0o600);
    await fs.rm(file());
    expect(await keys.has(ref)).toBe(false);
  });

  it("refuses a broken file without quoting it, and does not overwrite it", async () => {
    await fs.writeFile(file(), '{"version":1,"keys":{"key_aaaaaaaaaaaa":"sk-in-broken-file" oops');
    const keys = new ModelKeyStore(root, new FileQueues());
    await expect(keys.refresh()).rejects.toThrow(/does not load as a key store/);
    await expect(keys.refresh()).rejects.not.toThrow(/sk-in-broken-file/);
    await expect(keys.put("sk-new")).rejects.toThrow();
    expect(await fs.readFile(file(), "utf8")).toContain("sk-in-broken-file");
  });
});

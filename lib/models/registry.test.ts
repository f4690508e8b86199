import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadRegistry } from "./registry";

let root: string;

const models = (label: string) => JSON.stringify({ default: "fake", models: { fake: { label, base_url: "http://127.0.0.1:9/v1", model: "m" } } });

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-registry-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

describe("loadRegistry", () => {
  it("parses models.json once while the file does not change", async () => {
    await fs.writeFile(path.join(root, "models.json"), models("First"));
    const reads = vi.spyOn(fs, "readFile");
    for (let i = 0; i < 10; i++) expect((await loadRegistry(root)).models.fake?.label).toBe("First");
    expect(reads.mock.calls.filter(([f]) => String(f).endsWith("models.json"))).toHaveLength(1);
  });

  it("reads the file again after an edit in place, a rename over it, or its removal", async () => {
    const file = path.join(root, "models.json");
    await fs.writeFile(file, models("First"));
    expect((await loadRegistry(root)).models.fake?.label).toBe("First");
    // Same size, same second: the nanosecond time and the change time still differ.
    await fs.writeFile(file, models("Other"));
    expect((await loadRegistry(root)).models.fake?.label).toBe("Other");
    await fs.writeFile(`${file}.new`, models("Renamed"));
    await fs.rename(`${file}.new`, file);
    expect((await loadRegistry(root)).models.fake?.label).toBe("Renamed");
    await fs.rm(file);
    expect((await loadRegistry(root)).models.fake).toBeUndefined();
    expect((await loadRegistry(root)).default).toBe("offline");
  });
});

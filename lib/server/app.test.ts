import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeApp, startApp, type AstrionApp } from "./app";
import { ConversationStore } from "@/lib/store";

// Two apps built in one process, as two tests would build theirs: nothing of one is seen by the
// other, and within each every part shares the one instance its composition root made.
let base: string;
let project: string;
let a: AstrionApp;
let b: AstrionApp;

beforeAll(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "astrion-app-")));
  project = path.join(base, "project");
  await fs.mkdir(project);
  a = await startApp(path.join(base, "a"));
  b = await startApp(path.join(base, "b"));
}, 60_000);

afterAll(async () => {
  await Promise.all([a, b].filter(Boolean).map((app) => closeApp(app)));
  await fs.rm(base, { recursive: true, force: true, maxRetries: 5 });
});

describe("the composition root", () => {
  it("gives each app protected folders of its own: its data folder and the server's build, nothing another app registered", async () => {
    const kinds = (app: AstrionApp) => app.workspace.protectedFolders.list().map((r) => [r.kind, r.real]);
    expect(kinds(a)).toEqual([
      ["data", path.join(base, "a")],
      ["app", path.join(process.cwd(), ".next")],
      ["app", path.join(process.cwd(), "node_modules")],
    ]);
    expect(kinds(b)).toContainEqual(["data", path.join(base, "b")]);
    expect(kinds(b)).not.toContainEqual(["data", path.join(base, "a")]);
    // a folder inside A's data folder is refused by A's store, not by B's (B protects its own)
    const inA = path.join(base, "a", "agents");
    await expect(a.store.create({ title: "x", project_path: inA, model_key: "offline" })).rejects.toMatchObject({ details: [{ reason: "inside_data_folder" }] });
    await expect(b.store.create({ title: "x", project_path: inA, model_key: "offline" })).resolves.toMatchObject({ project_path: inA });
  });

  it("hands every part the app's one write queues and workspace", () => {
    expect(a.queues).not.toBe(b.queues);
    expect(a.workspace.parts.queues).toBe(a.queues);
    expect(a.knowledge.parts).toMatchObject({ queues: a.queues, workspace: a.workspace });
  });

  it("writes the store's files through the app's queues and appends its JSON Lines through the app's open files", async () => {
    const conv = await a.store.create({ title: "Queued", project_path: project, model_key: "offline" });
    const metadata = path.join(base, "a", "conversations", conv.id, "metadata.json");
    let release!: () => void;
    const held = a.queues.withFileLock(metadata, () => new Promise<void>((resolve) => (release = resolve)));
    let renamed = false;
    const rename = a.store.update(conv.id, { title: "Renamed" }).then(() => (renamed = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(renamed).toBe(false);
    release();
    await Promise.all([held, rename]);
    expect((await a.store.get(conv.id)).title).toBe("Renamed");

    const open = b.lines.openFiles();
    const files = a.store as ConversationStore; // this app is built on the file store
    expect(files).toBeInstanceOf(ConversationStore);
    await files.appendLine(conv.id, "timeline.jsonl", JSON.stringify({ n: 1 }));
    expect(a.lines.openFiles()).toBe(1);
    expect(b.lines.openFiles()).toBe(open);
    await files.closeLineFiles(conv.id);
    expect(a.lines.openFiles()).toBe(0);
  });
});

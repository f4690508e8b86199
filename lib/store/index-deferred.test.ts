import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { newConversationStore } from "@/test/helpers/conversation-store";
import { reconcileIndex } from "./conversation-index";
import type { IndexFile } from "@/lib/contracts/on-disk";

let dir: string;
let project: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-index-soon-"));
  project = path.join(dir, "project");
  await fs.mkdir(project);
});
afterAll(async () => {
  // maxRetries: a background index.json write may still be landing (IndexKeeper.putSoon).
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});
afterEach(() => {
  vi.useRealTimers();
});

const indexOf = async (root: string): Promise<IndexFile> => JSON.parse(await fs.readFile(path.join(root, "conversations", "index.json"), "utf8"));

describe("index.json and the engine's steps", () => {
  it("a step that only moves updated_at or the agent count does not wait for index.json; a rename does", async () => {
    const store = newConversationStore(path.join(dir, "root-steps"));
    await store.init();
    const meta = await store.create({ title: "Steps", project_path: project, model_key: "offline" });
    await store.open(meta.id);
    const before = (await indexOf(store.root))[meta.id]!.updated_at;
    // A later second: the step's change moves updated_at.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 5_000);
    await store.updateLeaderMessages(meta.id, (f) => ({ ...f, messages: [...f.messages, { role: "user", content: "hi" }] }));
    const moved = (await store.get(meta.id)).updated_at;
    expect(moved).not.toBe(before);
    // The list shows it at once; index.json does not hold it yet.
    expect((await store.list({ limit: 10, offset: 0 })).items[0]?.updated_at).toBe(moved);
    expect((await indexOf(store.root))[meta.id]!.updated_at).toBe(before);
    await store.flushIndex();
    expect((await indexOf(store.root))[meta.id]!.updated_at).toBe(moved);
    // A new sub-agent's count: shown at once, written in the background (it waited for a whole
    // index.json rewrite and two fsyncs).
    await store.update(meta.id, { agent_count: 1, agent_ids: [1] });
    expect((await store.list({ limit: 10, offset: 0 })).items[0]?.agent_count).toBe(1);
    expect((await indexOf(store.root))[meta.id]!.agent_count).toBe(0);
    await store.flushIndex();
    expect((await indexOf(store.root))[meta.id]!.agent_count).toBe(1);
    // A title is a change of the index's fields: written before the change resolves.
    await store.update(meta.id, { title: "Renamed" });
    expect((await indexOf(store.root))[meta.id]!.title).toBe("Renamed");
    await store.closeConversation(meta.id);
  });

  it("after a crash only updated_at times and agent counts can be behind; the next start catches them up without reporting a rebuild", async () => {
    const store = newConversationStore(path.join(dir, "root-crash"));
    await store.init();
    const meta = await store.create({ title: "Crash", project_path: project, model_key: "offline" });
    const file = path.join(store.root, "conversations", "index.json");
    const index = await indexOf(store.root);
    // As if the background write never happened: index.json one change behind metadata.json.
    index[meta.id]!.updated_at = "2020-01-01T00:00:00";
    index[meta.id]!.agent_count = 3;
    await fs.writeFile(file, JSON.stringify(index));
    const restarted = newConversationStore(store.root);
    await restarted.init();
    expect(restarted.indexReport().rebuilds).toEqual([]);
    expect((await indexOf(store.root))[meta.id]).toMatchObject({ updated_at: meta.updated_at, agent_count: 0 });
  });

  it("tells a difference a step makes (time, agent count) from a changed entry", () => {
    const meta = { id: "conv_20260101_000000_001", title: "T", created_at: "2026-01-01T00:00:00", updated_at: "2026-01-02T00:00:00", agent_count: 1 } as never;
    const entry = { title: "T", created_at: "2026-01-01T00:00:00", updated_at: "2026-01-01T12:00:00", agent_count: 1 };
    expect(reconcileIndex({ conv_20260101_000000_001: entry }, [meta], new Set())).toMatchObject({ touched: ["conv_20260101_000000_001"], changed: [] });
    expect(reconcileIndex({ conv_20260101_000000_001: { ...entry, agent_count: 0 } }, [meta], new Set())).toMatchObject({ touched: ["conv_20260101_000000_001"], changed: [] });
    expect(reconcileIndex({ conv_20260101_000000_001: { ...entry, title: "Old" } }, [meta], new Set())).toMatchObject({ touched: [], changed: ["conv_20260101_000000_001"] });
    expect(reconcileIndex({ conv_20260101_000000_001: { ...entry, created_at: "2025-01-01T00:00:00" } }, [meta], new Set())).toMatchObject({ touched: [], changed: ["conv_20260101_000000_001"] });
  });
});

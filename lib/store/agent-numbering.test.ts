/**
 * Sub-agents numbered within their conversation (lib/store/agent-files.ts): every conversation's
 * first agent is 1, held in memory or not; a data folder numbered globally before goes on after
 * each conversation's highest id and no folder is renumbered; and state.json's
 * `agent_id_counter` stays the data folder's count of agent instances, rebuilt as such.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StateFileSchema } from "@/lib/contracts/on-disk";
import { newConversationStore } from "@/test/helpers/conversation-store";
import type { ConversationStore } from "./conversation-store";
import { readJsonFile } from "./files";

let dir: string;
let project: string;
let counter = 0;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-numbering-"));
  project = path.join(dir, "project");
  await fs.mkdir(project);
});
afterAll(async () => {
  // maxRetries: a background index.json write may still be landing.
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function freshStore(root = path.join(dir, `root-${++counter}`)): Promise<ConversationStore> {
  const store = newConversationStore(root);
  await store.init();
  return store;
}

const agentsOf = (store: ConversationStore, id: string) => path.join(store.root, "conversations", id, "agents");
const role = { role_id: "code-reviewer", role_name: "Code Reviewer" };

/**
 * Gives a closed conversation's agents other ids, as a data folder numbered globally has them:
 * folder, both files and the conversation's `agent_ids`, written by hand; then a restart.
 */
async function renumber(store: ConversationStore, id: string, ids: ReadonlyMap<number, number>): Promise<ConversationStore> {
  for (const [from, to] of ids) {
    const folder = path.join(agentsOf(store, id), String(to));
    await fs.rename(path.join(agentsOf(store, id), String(from)), folder);
    for (const name of ["metadata.json", "messages.json"]) {
      const file = path.join(folder, name);
      const data = JSON.parse(await fs.readFile(file, "utf8"));
      await fs.writeFile(file, JSON.stringify({ ...data, agent_id: to, display_name: `${role.role_name}_${to}` }, null, 2));
    }
  }
  const metaFile = path.join(store.root, "conversations", id, "metadata.json");
  const meta = JSON.parse(await fs.readFile(metaFile, "utf8"));
  await fs.writeFile(metaFile, JSON.stringify({ ...meta, agent_ids: meta.agent_ids.map((n: number) => ids.get(n) ?? n) }, null, 2));
  return freshStore(store.root);
}

describe("agents numbered within their conversation", () => {
  it("gives a held conversation's agents 1, 2, 3 … of their own, concurrent creates included, and goes on with them once it is closed", async () => {
    const store = await freshStore();
    const a = await store.create({ project_path: project, model_key: "m" });
    const b = await store.create({ project_path: project, model_key: "m" });
    await store.open(a.id);
    await store.open(b.id);
    const created = await Promise.all(Array.from({ length: 15 }, (_, i) => store.createAgent(i % 3 === 0 ? b.id : a.id, role)));
    const idsIn = (id: string) => created.filter((_, i) => (i % 3 === 0 ? b.id : a.id) === id).map((m) => m.agent_id).sort((x, y) => x - y);
    expect(idsIn(a.id)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(idsIn(b.id)).toEqual([1, 2, 3, 4, 5]);
    expect(created.every((m) => m.display_name === `Code Reviewer_${m.agent_id}`)).toBe(true);
    await store.closeConversation(a.id);
    await store.closeConversation(b.id);
    expect(await store.get(a.id)).toMatchObject({ agent_ids: Array.from({ length: 10 }, (_, i) => i + 1), agent_count: 10 });
    expect(await store.get(b.id)).toMatchObject({ agent_ids: [1, 2, 3, 4, 5], agent_count: 5 });
    expect((await fs.readdir(agentsOf(store, b.id))).sort()).toEqual(["1", "2", "3", "4", "5"]);
    // Closed now: the next one is past them, in each conversation.
    expect((await store.createAgent(a.id, role)).agent_id).toBe(11);
    expect((await store.createAgent(b.id, role)).agent_id).toBe(6);
    // Every agent of the data folder is counted (16 of them, one block of the count reserved).
    expect((await readJsonFile(path.join(store.root, "state.json"), StateFileSchema)).agent_id_counter).toBeGreaterThanOrEqual(17);
  });

  it("goes on after a conversation's highest id (agents 33 and 34 numbered globally before), never renumbering its folders", async () => {
    const before = await freshStore();
    const conv = await before.create({ project_path: project, model_key: "m" });
    await before.createAgent(conv.id, role);
    await before.createAgent(conv.id, role);
    const store = await renumber(before, conv.id, new Map([[1, 33], [2, 34]]));
    const folder33 = await fs.readFile(path.join(agentsOf(store, conv.id), "33", "metadata.json"), "utf8");

    // Closed.
    expect(await store.createAgent(conv.id, role)).toMatchObject({ agent_id: 35, display_name: "Code Reviewer_35" });
    // Held in memory.
    await store.open(conv.id);
    expect(await store.createAgent(conv.id, role)).toMatchObject({ agent_id: 36, display_name: "Code Reviewer_36" });
    await store.closeConversation(conv.id);

    expect(await store.get(conv.id)).toMatchObject({ agent_ids: [33, 34, 35, 36], agent_count: 4 });
    expect((await fs.readdir(agentsOf(store, conv.id))).sort()).toEqual(["33", "34", "35", "36"]);
    expect(await fs.readFile(path.join(agentsOf(store, conv.id), "33", "metadata.json"), "utf8")).toBe(folder33);
    // A new conversation of the same data folder starts at 1.
    const next = await store.create({ project_path: project, model_key: "m" });
    expect((await store.createAgent(next.id, role)).display_name).toBe("Code Reviewer_1");
  });

  it("does not take the id of an empty agent folder a create cut short left behind, closed or held", async () => {
    const store = await freshStore();
    const closed = await store.create({ project_path: project, model_key: "m" });
    const held = await store.create({ project_path: project, model_key: "m" });
    for (const id of [closed.id, held.id]) {
      expect((await store.createAgent(id, role)).agent_id).toBe(1);
      // A SIGKILL after the folder claimed agent 2 and before its files were renamed in.
      await fs.mkdir(path.join(agentsOf(store, id), "2"));
      await fs.mkdir(path.join(agentsOf(store, id), ".creating-7-0123abcd"));
    }
    expect((await store.createAgent(closed.id, role)).agent_id).toBe(3);
    await store.open(held.id);
    expect((await store.createAgent(held.id, role)).agent_id).toBe(3);
    await store.closeConversation(held.id);
  });
});

describe("state.json's agent_id_counter, the data folder's count of agent instances", () => {
  it("is rebuilt as the number of agents of every conversation, and never below an id in use", async () => {
    const store = await freshStore();
    const a = await store.create({ project_path: project, model_key: "m" });
    const b = await store.create({ project_path: project, model_key: "m" });
    for (const id of [a.id, a.id, a.id, b.id, b.id]) await store.createAgent(id, role);
    const statePath = path.join(store.root, "state.json");
    await fs.rm(statePath);
    const restarted = await freshStore(store.root);
    // a: 1, 2, 3; b: 1, 2 — five agents, the highest id 3.
    expect((await readJsonFile(statePath, StateFileSchema)).agent_id_counter).toBe(5);

    // Numbered globally before: b's agents are 40 and 41, more than the agents there are.
    const renumbered = await renumber(restarted, b.id, new Map([[1, 40], [2, 41]]));
    await fs.rm(statePath);
    await freshStore(renumbered.root);
    expect((await readJsonFile(statePath, StateFileSchema)).agent_id_counter).toBe(41);
  });
});

/**
 * The store's side of export and import: a consistent snapshot of a live conversation's folder,
 * and placing an imported folder (new id, same id, replace) with the index and state.json in step.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, ValidationError } from "@/lib/contracts/errors";
import { classifyPath, rekeyFiles } from "@/lib/export/bundle";
import { FIXTURE_ID, fixtureFolder } from "@/test/helpers/export/folder";
import { ConversationStore } from "./conversation-store";
import { newConversationStore } from "@/test/helpers/conversation-store";
import type { Message } from "@/lib/contracts/on-disk";

let dir: string;
let project: string;
let counter = 0;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-install-"));
  project = path.join(dir, "project");
  await fs.mkdir(project);
});
afterAll(async () => {
  // maxRetries: a background index.json write may still be landing (IndexKeeper.putSoon).
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function newStore(): Promise<ConversationStore> {
  const store = newConversationStore(path.join(dir, `root-${++counter}`));
  await store.init();
  return store;
}

function msg(n: number): Message {
  return { role: "user", content: `message ${n}`, message_id: `msg_${n}`, metadata: { message_source: "user", visibility: "chat", starts_work: true } };
}

const accept = (rel: string) => classifyPath(rel) !== null;
const decode = (d: Uint8Array | undefined) => new TextDecoder().decode(d);

describe("snapshotFolder", () => {
  it("reads every acknowledged change, and writes wait until the files are read", async () => {
    const store = await newStore();
    const { id } = await store.create({ title: "Snap", project_path: project, model_key: "offline" });
    await store.createAgent(id, { role_id: "researcher", role_name: "Researcher" });
    const live = await store.open(id);
    // Acknowledged (durable in the step log); the seed file follows in the background.
    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(1)] }));
    const files = await store.snapshotFolder(id, accept, { bytes: 10_000_000 });
    expect(JSON.parse(decode(files.get("messages.json"))).messages.map((m: Message) => m.message_id)).toEqual(["msg_1"]);
    expect([...files.keys()].sort()).toEqual(["agents/1/messages.json", "agents/1/metadata.json", "messages.json", "metadata.json"]);

    let later: Promise<unknown> | null = null;
    const during = await live.frozen(async () => {
      later = live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(2)] }));
      await new Promise((r) => setTimeout(r, 50));
      return fs.readFile(path.join(store.root, "conversations", id, "messages.json"), "utf8");
    });
    expect(JSON.parse(during).messages.map((m: Message) => m.message_id)).toEqual(["msg_1"]);
    await later;
    await live.flushed();
    const after = JSON.parse(await fs.readFile(path.join(store.root, "conversations", id, "messages.json"), "utf8"));
    expect(after.messages.map((m: Message) => m.message_id)).toEqual(["msg_1", "msg_2"]);
    await store.closeConversation(id);
  });

  it("refuses to read more than the budget", async () => {
    const store = await newStore();
    const { id } = await store.create({ title: "Big", project_path: project, model_key: "offline" });
    await expect(store.snapshotFolder(id, accept, { bytes: 10 })).rejects.toMatchObject({ code: "payload_too_large" });
    await store.closeConversation(id);
  });
});

describe("installConversation", () => {
  const files = () => fixtureFolder({ projectPath: project });

  it("creates a conversation under its id, byte for byte, listed, with its agents counted in state.json", async () => {
    const store = await newStore();
    const source = files(); // its timeline's trace ids are random: built once
    const meta = await store.installConversation(FIXTURE_ID, "create", () => source);
    expect(meta.id).toBe(FIXTURE_ID);
    for (const [rel, data] of source) {
      expect((await fs.readFile(path.join(store.root, "conversations", FIXTURE_ID, ...rel.split("/")))).equals(Buffer.from(data))).toBe(true);
    }
    expect((await store.list({ status: "all" })).items.map((i) => i.id)).toContain(FIXTURE_ID);
    const index = JSON.parse(await fs.readFile(path.join(store.root, "conversations", "index.json"), "utf8"));
    expect(index[FIXTURE_ID]).toMatchObject({ title: "Landing page review", agent_count: 1 });
    const state = JSON.parse(await fs.readFile(path.join(store.root, "state.json"), "utf8"));
    // One agent instance more in this data folder (the imported agent 3 keeps its id).
    expect(state.agent_id_counter).toBe(1);
    expect(state.last_conversation_id).toBe(FIXTURE_ID);
    // Agents are numbered within their conversation: another one's first agent is 1.
    const { id } = await store.create({ title: "After", project_path: project, model_key: "offline" });
    expect((await store.createAgent(id, { role_id: "r", role_name: "R" })).agent_id).toBe(1);
    // Nothing was left behind in the conversations folder.
    expect((await fs.readdir(path.join(store.root, "conversations"))).filter((n) => n.startsWith("."))).toEqual([]);

    await expect(store.installConversation(FIXTURE_ID, "create", files)).rejects.toBeInstanceOf(ConflictError);
  });

  it("keeps the imported agents' ids: the imported conversation goes on after them, closed or held, and the count moves on by them", async () => {
    const store = await newStore();
    const { id } = await store.create({ title: "Before", project_path: project, model_key: "offline" });
    // Agent 1 reserves a block of the count (state.json's counter moves to 16).
    expect((await store.createAgent(id, { role_id: "r", role_name: "R" })).agent_id).toBe(1);
    await store.installConversation(FIXTURE_ID, "create", files);
    expect(JSON.parse(await fs.readFile(path.join(store.root, "state.json"), "utf8")).agent_id_counter).toBe(16 + 1);
    // Closed: the imported folder's agent 3 is followed by 4.
    expect(await store.createAgent(FIXTURE_ID, { role_id: "r", role_name: "R" })).toMatchObject({ agent_id: 4, display_name: "R_4" });
    // Held in memory: by 5.
    await store.open(FIXTURE_ID);
    expect(await store.createAgent(FIXTURE_ID, { role_id: "r", role_name: "R" })).toMatchObject({ agent_id: 5, display_name: "R_5" });
    await store.closeConversation(FIXTURE_ID);
    expect(await store.get(FIXTURE_ID)).toMatchObject({ agent_ids: [3, 4, 5], agent_count: 3 });
    // The other conversation goes on with its own numbers.
    expect((await store.createAgent(id, { role_id: "r", role_name: "R" })).agent_id).toBe(2);
  });

  it("imports a copy under a new id, rewritten", async () => {
    const store = await newStore();
    await store.installConversation(FIXTURE_ID, "create", files);
    const copy = await store.installConversation(FIXTURE_ID, "new_id", (to) => rekeyFiles(files(), FIXTURE_ID, to));
    expect(copy.id).not.toBe(FIXTURE_ID);
    expect((await store.get(copy.id)).title).toBe("Landing page review");
    expect((await store.readLeaderMessages(copy.id)).id).toBe(copy.id);
    expect((await store.list({ status: "all" })).items.map((i) => i.id).sort()).toEqual([FIXTURE_ID, copy.id].sort());
  });

  it("replaces a conversation only when it is not held in memory", async () => {
    const store = await newStore();
    await store.installConversation(FIXTURE_ID, "create", files);
    await store.open(FIXTURE_ID);
    const changed = () => fixtureFolder({ projectPath: project, title: "Replaced title" });
    await expect(store.installConversation(FIXTURE_ID, "replace", changed)).rejects.toBeInstanceOf(ConflictError);
    await store.closeConversation(FIXTURE_ID);
    const meta = await store.installConversation(FIXTURE_ID, "replace", changed);
    expect(meta.title).toBe("Replaced title");
    expect((await store.get(FIXTURE_ID)).title).toBe("Replaced title");
    expect((await store.list({ status: "all" })).items.find((i) => i.id === FIXTURE_ID)?.title).toBe("Replaced title");
  });

  it("refuses a project folder that a new conversation could not have, writing nothing", async () => {
    const store = await newStore();
    await expect(store.installConversation(FIXTURE_ID, "create", () => fixtureFolder({ projectPath: "/" }))).rejects.toBeInstanceOf(ValidationError);
    await expect(store.installConversation(FIXTURE_ID, "create", () => fixtureFolder({ projectPath: store.root }))).rejects.toBeInstanceOf(ValidationError);
    await expect(store.installConversation(FIXTURE_ID, "create", () => fixtureFolder({ projectPath: "relative/path" }))).rejects.toBeInstanceOf(ValidationError);
    expect((await fs.readdir(path.join(store.root, "conversations"))).filter((n) => n !== "index.json")).toEqual([]);
  });

  it("at boot, puts back a folder an overwrite had moved aside when the new one is not there", async () => {
    const store = await newStore();
    await store.installConversation(FIXTURE_ID, "create", files);
    const conversations = path.join(store.root, "conversations");
    await fs.rename(path.join(conversations, FIXTURE_ID), path.join(conversations, `.replaced-${FIXTURE_ID}-abcd1234`));
    await fs.mkdir(path.join(conversations, ".importing-0123456789ab"));
    const again = newConversationStore(store.root);
    await again.init();
    expect((await again.get(FIXTURE_ID)).id).toBe(FIXTURE_ID);
    expect((await fs.readdir(conversations)).filter((n) => n.startsWith("."))).toEqual([]);
  });
});

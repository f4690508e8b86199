import { closeSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { ConversationStore } from "./conversation-store";
import { newConversationStore } from "@/test/helpers/conversation-store";
import { toPythonJson } from "./json";
import { JsonLineFiles } from "./jsonl";
import { LiveConversation, messagesDelta, STEP_LOG_FILE } from "./live-conversation";
import type { Message } from "@/lib/contracts/on-disk";

let dir: string;
let project: string;
let counter = 0;
// The JSON Lines files of the process the conversations are loaded in (the stores have their own).
const jsonl = new JsonLineFiles();

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-live-"));
  project = path.join(dir, "project");
  await fs.mkdir(project);
});
afterAll(async () => {
  // A step that moves only updated_at or the agent count leaves index.json to a background write
  // (IndexKeeper.putSoon): let it land before the folders go.
  await Promise.all(stores.map((s) => s.flushIndex().catch(() => undefined)));
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** A store with one conversation that has one sub-agent. */
/** Every store made by {@link conversation}. */
const stores: ConversationStore[] = [];

async function conversation(): Promise<{ store: ConversationStore; id: string; agentId: number; convDir: string }> {
  const store = newConversationStore(path.join(dir, `root-${++counter}`));
  stores.push(store);
  await store.init();
  const meta = await store.create({ title: "Live", project_path: project, model_key: "offline" });
  const agent = await store.createAgent(meta.id, { role_id: "researcher", role_name: "Researcher" });
  return { store, id: meta.id, agentId: agent.agent_id, convDir: path.join(store.root, "conversations", meta.id) };
}

function msg(n: number, role: Message["role"] = "user"): Message {
  return { role, content: `message ${n} 多`, message_id: `msg_${n}`, metadata: { message_source: "user", visibility: "chat", starts_work: true } };
}

async function fileText(file: string): Promise<string> {
  return fs.readFile(file, "utf8");
}

describe("messagesDelta", () => {
  it("is the appended tail when the old messages are kept, else everything", () => {
    const a = [msg(1), msg(2)];
    expect(messagesDelta(a, [...a, msg(3)])).toEqual({ at: 2, add: [msg(3)] });
    expect(messagesDelta(a, a)).toEqual({ at: 2, add: [] });
    expect(messagesDelta(a, [a[0]!, msg(9)])).toEqual({ at: 0, add: [a[0], msg(9)] });
    expect(messagesDelta(a, [a[0]!])).toEqual({ at: 0, add: [a[0]] });
  });
});

describe("a live conversation", () => {
  it("serves reads from memory and writes the seed files, byte for byte, after each durable change", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const { live, report } = await LiveConversation.load(store.root, id, jsonl);
    expect(report).toEqual({ replayed: 0, repairedBytes: 0, broken: [] });
    expect(live.agentIds()).toEqual([agentId]);

    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(1)] }));
    await live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(2, "assistant")] }));
    await live.updateAgentMetadata(agentId, (m) => ({ ...m, status: "idle" }));
    await live.flushed();

    expect(await fileText(path.join(convDir, "messages.json"))).toBe(toPythonJson(live.leader));
    expect(await fileText(path.join(convDir, "metadata.json"))).toBe(toPythonJson(live.metadata));
    expect(await fileText(path.join(convDir, "agents", String(agentId), "messages.json"))).toBe(toPythonJson(live.agentMessages(agentId)));
    expect(JSON.parse(await fileText(path.join(convDir, "agents", String(agentId), "metadata.json"))).status).toBe("idle");
    // The store reads the same files and sees the same conversation.
    expect((await store.readLeaderMessages(id)).messages.map((m) => m.message_id)).toEqual(["msg_1"]);

    // Reads never go to disk: with the files gone, the conversation is still all there.
    await fs.rm(path.join(convDir, "messages.json"));
    expect(live.leader.messages).toHaveLength(1);
    await live.close();
  });

  it("acknowledges a change once the log holds it; the seed files follow, one rewrite for a burst", async () => {
    const { store, id, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    const leaderFile = path.join(convDir, "messages.json");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const real = fs.writeFile.bind(fs);
    const writes: string[] = [];
    const spy = vi.spyOn(fs, "writeFile").mockImplementation(async (file, data, options) => {
      const name = String(file);
      if (name.startsWith(`${leaderFile}.`)) {
        writes.push(name);
        // The first rewrite of messages.json hangs until released: the changes behind it must not wait.
        if (writes.length === 1) await held;
      }
      return real(file as string, data as string, options as never);
    });
    try {
      await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(1)] }), { touch: false });
      // The rewrite comes a moment later (the delay lets a burst share it); here it starts and hangs.
      expect(writes).toHaveLength(0);
      while (writes.length === 0) await new Promise((r) => setTimeout(r, 5));
      for (let n = 2; n <= 20; n++) await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(n)] }), { touch: false });
      expect(writes).toHaveLength(1);
      release();
      await live.flushed();
      expect(writes).toHaveLength(2);
      expect(await fileText(leaderFile)).toBe(toPythonJson(live.leader));
      expect(live.leader.messages).toHaveLength(20);
    } finally {
      spy.mockRestore();
      release();
    }
    await live.close();
  });

  it("commits every change made in one tick with one log sync, whoever made it", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    const before = (await fs.stat(path.join(convDir, STEP_LOG_FILE))).size;
    await Promise.all([
      live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(1)] }), { touch: false }),
      live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(2)] })),
      live.updateAgentMetadata(agentId, (m) => ({ ...m, task_summary: "t" })),
    ]);
    expect(live.logStats).toMatchObject({ records: 3, syncs: 1 });
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBeGreaterThan(before);
    await live.close();
  });

  it("resolves an eager change before it is durable, tells when it is, and tells the store's hooks only then", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const seen: string[] = [];
    const { live } = await LiveConversation.load(store.root, id, jsonl, {
      onMessages: (agent, at) => seen.push(`messages ${agent} ${at}`),
      onAgent: (meta) => seen.push(`agent ${meta.task_summary}`),
    });
    const mark0 = live.durableMark;
    const messages = await live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(1)] }), { eager: true });
    await live.updateAgentMetadata(agentId, (m) => ({ ...m, task_summary: "eager" }), { eager: true });
    await live.appendLine("timeline.jsonl", JSON.stringify({ probe: 1 }), { eager: true });
    // Applied in memory and ordered, not durable: nothing reached the log yet, no hook ran.
    const mark = live.durableMark;
    expect(mark).toBe(mark0 + 3);
    expect(live.isDurable(mark)).toBe(false);
    expect(live.agentMessages(agentId)).toBe(messages);
    expect(live.agentMetadata(agentId).task_summary).toBe("eager");
    expect(live.logStats.records).toBe(0);
    expect(seen).toEqual([]);
    await live.whenDurable(mark);
    expect(live.isDurable(mark)).toBe(true);
    // The three changes made in one go share one sync.
    expect(live.logStats).toMatchObject({ records: 3, syncs: 1 });
    await live.flushed();
    expect(seen).toEqual(["messages " + agentId + " 0", "agent eager"]);
    // A default change resolves durable, and with it every eager change made before it.
    void live.updateAgentMetadata(agentId, (m) => ({ ...m, task_summary: "later" }), { eager: true });
    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(2)] }));
    expect(live.isDurable(live.durableMark)).toBe(true);
    await live.close();
    expect(JSON.parse(await fileText(path.join(convDir, "agents", String(agentId), "metadata.json"))).task_summary).toBe("later");
    expect(await fileText(path.join(convDir, "timeline.jsonl"))).toContain('{"probe":1}');
  });

  it("answers the store's reads once what they show is durable, and the engine's eager reads at once", async () => {
    const { store, id, agentId } = await conversation();
    const live = await store.open(id);
    await store.updateAgentMetadata(id, agentId, (m) => ({ ...m, task_summary: "ahead" }), { eager: true });
    const mark = live.durableMark;
    expect(live.isDurable(mark)).toBe(false);
    const eager = await store.readAgentMetadata(id, agentId, { eager: true });
    expect(eager.task_summary).toBe("ahead");
    expect(live.isDurable(mark)).toBe(false);
    const shown = await store.readAgentMetadata(id, agentId);
    expect(shown.task_summary).toBe("ahead");
    expect(live.isDurable(mark)).toBe(true);
    // Every read waits the same way.
    await store.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, msg(1)] }), { eager: true });
    const after = live.durableMark;
    expect((await store.readLeaderMessages(id)).messages.map((m) => m.message_id)).toEqual(["msg_1"]);
    expect(live.isDurable(after)).toBe(true);
    await store.closeConversation(id);
  });

  it("refuses every change once its step log failed, eager ones included, and rejects the waits", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    await live.updateAgentMetadata(agentId, (m) => ({ ...m, task_summary: "before" }));
    // No background write may open a file (and take the descriptor's number) meanwhile.
    await live.flushed();
    // The log's descriptor closed under it: its next write fails (EBADF), as a failing disk would fail it.
    const logFile = path.join(convDir, STEP_LOG_FILE);
    const fds = await fs.readdir("/proc/self/fd");
    const fd = (await Promise.all(fds.map(async (n) => ((await fs.readlink(`/proc/self/fd/${n}`).catch(() => "")) === logFile ? Number(n) : -1)))).find((n) => n >= 0);
    expect(fd).toBeGreaterThanOrEqual(0);
    closeSync(fd!);
    await live.updateAgentMetadata(agentId, (m) => ({ ...m, task_summary: "lost" }), { eager: true });
    await expect(live.whenDurable()).rejects.toThrow(/EBADF/);
    await expect(live.updateAgentMetadata(agentId, (m) => ({ ...m, task_summary: "refused" }), { eager: true })).rejects.toThrow(/step log failed/);
    await expect(live.appendLine("timeline.jsonl", "{}", { eager: true })).rejects.toThrow(/step log failed/);
    await live.detach();
  });

  it("writes nothing for a change that hands back the object it was given", async () => {
    const { store, id, agentId } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    const before = { leader: live.leader, meta: live.metadata, agent: live.agentMetadata(agentId), messages: live.agentMessages(agentId) };
    await live.updateLeader((f) => f);
    await live.updateMetadata((m) => m);
    await live.updateAgentMetadata(agentId, (m) => m);
    await live.updateAgentMessages(agentId, (f) => f);
    expect(live.logStats.records).toBe(0);
    expect({ leader: live.leader, meta: live.metadata, agent: live.agentMetadata(agentId), messages: live.agentMessages(agentId) }).toEqual(before);
    await live.close();
  });

  it("makes a tick's timeline, context and journal lines durable with the same one log sync as its seed changes", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    const syncs = jsonl.stats.syncs;
    const folderSyncs = jsonl.stats.folderSyncs;
    await Promise.all([
      live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(1, "assistant")] })),
      live.appendLine("timeline.jsonl", JSON.stringify({ n: 1 })),
      live.appendLine("context.jsonl", JSON.stringify({ n: 2 })),
      live.appendLine("actions.jsonl", JSON.stringify({ key: "k", status: "started" })),
    ]);
    expect(live.logStats).toMatchObject({ records: 4, syncs: 1 });
    // written to their files already (readers see them), with no fsync of their own
    expect(await fileText(path.join(convDir, "timeline.jsonl"))).toBe('{"n":1}\n');
    expect(await fileText(path.join(convDir, "context.jsonl"))).toBe('{"n":2}\n');
    expect(jsonl.stats.syncs).toBe(syncs);
    // nor of the folder that lists the files they created
    expect(jsonl.stats.folderSyncs).toBe(folderSyncs);
    // the checkpoint at close syncs them, and the folder once, before it empties the log
    await live.close();
    expect(jsonl.stats.syncs).toBe(syncs + 3);
    expect(jsonl.stats.folderSyncs).toBe(folderSyncs + 1);
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBe(0);
  });

  it("puts back, after a crash, the logged lines a file lost or never got, in order and once", async () => {
    const { store, id, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    const timeline = path.join(convDir, "timeline.jsonl");
    for (let i = 1; i <= 6; i++) await live.appendLine("timeline.jsonl", JSON.stringify({ seq: i }));
    await live.appendLine("actions.jsonl", JSON.stringify({ key: "a", status: "started" }));
    await live.detach();
    await jsonl.close(convDir); // a new process holds no file open
    // As a power loss could leave them: the timeline lost its last 3 lines and kept a torn
    // fragment of the next; the journal lost its file.
    const kept = (await fileText(timeline)).split("\n").slice(0, 3).join("\n");
    await fs.writeFile(timeline, `${kept}\n{"seq":`);
    await fs.rm(path.join(convDir, "actions.jsonl"));

    const { live: again } = await LiveConversation.load(store.root, id, jsonl);
    const lines = (await fileText(timeline)).split("\n").filter(Boolean);
    // the torn fragment stays (an audit log is never rewritten), sealed by the first restored line
    expect(lines).toEqual(['{"seq":1}', '{"seq":2}', '{"seq":3}', '{"seq":', '{"seq":4}', '{"seq":5}', '{"seq":6}']);
    expect(await fileText(path.join(convDir, "actions.jsonl"))).toBe('{"key":"a","status":"started"}\n');
    await again.close();
    // a second load has nothing to put back
    const { live: third } = await LiveConversation.load(store.root, id, jsonl);
    expect((await fileText(timeline)).split("\n").filter(Boolean)).toHaveLength(7);
    await third.close();
  });

  it("replays the log over seed files a crash left behind, and the replay is idempotent", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const files = ["metadata.json", "messages.json", `agents/${agentId}/metadata.json`, `agents/${agentId}/messages.json`];
    const snapshot = new Map<string, string>();
    for (const f of files) snapshot.set(f, await fileText(path.join(convDir, f)));

    const { live } = await LiveConversation.load(store.root, id, jsonl);
    for (let i = 1; i <= 5; i++) {
      await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(i)] }));
      await live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(100 + i, "assistant")] }));
    }
    await live.updateAgentMetadata(agentId, (m) => ({ ...m, status: "completed" }));
    await live.updateMetadata((m) => ({ ...m, title: "Renamed" }));
    const expected = { leader: live.leader, agent: live.agentMessages(agentId), meta: live.metadata };
    // Simulate a crash after the log was synced but before any seed file was rewritten: put the
    // old files back (the log is not emptied: the object is detached, not closed).
    await live.detach();
    for (const [f, text] of snapshot) await fs.writeFile(path.join(convDir, f), text);

    const { live: again, report } = await LiveConversation.load(store.root, id, jsonl);
    // 5 × (leader + metadata touch) + 5 agent messages + agent metadata + metadata and leader title
    expect(report.replayed).toBe(18);
    expect(again.leader).toEqual(expected.leader);
    expect(again.agentMessages(agentId)).toEqual(expected.agent);
    expect(again.agentMetadata(agentId).status).toBe("completed");
    expect(again.metadata).toEqual(expected.meta);
    // The catch-up was written durably and the log emptied.
    expect(await fileText(path.join(convDir, "messages.json"))).toBe(toPythonJson(expected.leader));
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBe(0);
    await again.close();

    // Replaying the same records over files that already hold them changes nothing.
    const { live: third } = await LiveConversation.load(store.root, id, jsonl);
    expect(third.leader).toEqual(expected.leader);
    await third.close();
  });

  it("replays over seed files that are ahead of part of the log", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    for (let i = 1; i <= 4; i++) await live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(i)] }));
    const log = await fileText(path.join(convDir, STEP_LOG_FILE));
    await live.detach();
    // Files hold all four messages; the log still holds every record (no checkpoint yet).
    const { live: again, report } = await LiveConversation.load(store.root, id, jsonl);
    expect(report.replayed).toBe(log.trim().split("\n").length);
    expect(again.agentMessages(agentId).messages.map((m) => m.message_id)).toEqual(["msg_1", "msg_2", "msg_3", "msg_4"]);
    await again.close();
  });

  it("refuses an invalid change and keeps the state it had", async () => {
    const { store, id, agentId } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    const bad = { role: "robot", content: "x" } as unknown as Message;
    await expect(live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, bad] }))).rejects.toBeInstanceOf(ValidationError);
    expect(live.agentMessages(agentId).messages).toEqual([]);
    await expect(live.updateMetadata((m) => ({ ...m, status: "gone" as "active" }))).rejects.toBeInstanceOf(ValidationError);
    expect(live.metadata.status).toBe("active");
    await live.close();
  });

  it("checkpoints on close: seed files durable, log empty, later changes refused", async () => {
    const { store, id, convDir } = await conversation();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(1)] }));
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBeGreaterThan(0);
    await live.close();
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBe(0);
    await expect(live.updateLeader((f) => f)).rejects.toThrow(/closed/);
  });

  it("checkpoints by rewriting only what changed since it was last written, and syncing in place what a background pass wrote", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const file = (f: string) => path.join(convDir, f);
    const names = { meta: "metadata.json", leader: "messages.json", agentMeta: `agents/${agentId}/metadata.json`, agentMessages: `agents/${agentId}/messages.json` };
    const inode = async (f: string) => (await fs.stat(file(f))).ino;
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(1)] }), { touch: false });
    await live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(2)] }));
    await live.flushed(); // a pass without a sync, as the background one
    const written = { leader: await inode(names.leader), agentMessages: await inode(names.agentMessages), meta: await inode(names.meta), agentMeta: await inode(names.agentMeta) };
    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, msg(3)] }), { touch: false });

    const real = fs.open.bind(fs);
    const opened: string[] = [];
    const spy = vi.spyOn(fs, "open").mockImplementation(async (f, flags, mode) => {
      opened.push(`${path.relative(convDir, String(f))} ${String(flags)}`);
      return real(f as string, flags as string, mode as number);
    });
    try {
      await live.close();
    } finally {
      spy.mockRestore();
    }
    // The leader's messages changed again: rewritten (a new inode), durably, with the change.
    expect(await inode(names.leader)).not.toBe(written.leader);
    expect(JSON.parse(await fileText(file(names.leader))).messages.map((m: Message) => m.message_id)).toEqual(["msg_1", "msg_3"]);
    expect(opened.filter((o) => o.startsWith(`${names.leader}.`) && o.endsWith(" wx"))).toHaveLength(1);
    // The agent's messages were written by the pass and did not change since: synced where they are.
    expect(await inode(names.agentMessages)).toBe(written.agentMessages);
    expect(opened).toContain(`${names.agentMessages} r`);
    // Files this writer never wrote are neither rewritten nor synced.
    expect([await inode(names.meta), await inode(names.agentMeta)]).toEqual([written.meta, written.agentMeta]);
    expect(opened.filter((o) => o.startsWith(names.meta) || o.startsWith(names.agentMeta))).toEqual([]);
    expect((await fs.stat(file(STEP_LOG_FILE))).size).toBe(0);
  });

  it("closes a conversation that did not change without rewriting any seed file", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const files = ["metadata.json", "messages.json", `agents/${agentId}/metadata.json`, `agents/${agentId}/messages.json`].map((f) => path.join(convDir, f));
    const inodes = async () => Promise.all(files.map(async (f) => (await fs.stat(f)).ino));
    const before = await inodes();
    const { live } = await LiveConversation.load(store.root, id, jsonl);
    expect(live.leader.messages).toEqual([]);
    await live.close();
    // An atomic rewrite renames a new file over the old one: a new inode. None happened.
    expect(await inodes()).toEqual(before);
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBe(0);
    await expect(live.updateLeader((f) => f)).rejects.toThrow(/closed/);
  });
});

describe("the store with an open conversation", () => {
  it("serves every read from memory and sends every write through the step log", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const live = await store.open(id);
    expect(await store.open(id)).toBe(live);
    expect(store.isOpen(id)).toBe(true);

    await store.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, msg(1)] }));
    await store.updateAgentMessages(id, agentId, (f) => ({ ...f, messages: [...f.messages, msg(2)] }));
    await store.updateAgentMetadata(id, agentId, (m) => ({ ...m, status: "idle" }));
    await store.update(id, { title: "Renamed" });
    const second = await store.createAgent(id, { role_id: "code-reviewer", role_name: "Code Reviewer" });
    expect(live.logStats.records).toBeGreaterThanOrEqual(5);

    // With every file gone from disk, the store still answers from memory.
    const saved = await fs.readFile(path.join(convDir, "messages.json"), "utf8");
    await fs.rm(path.join(convDir, "messages.json"));
    await fs.rm(path.join(convDir, "agents", String(agentId), "metadata.json"));
    expect((await store.readLeaderMessages(id)).messages.map((m) => m.message_id)).toEqual(["msg_1"]);
    expect((await store.readAgentMetadata(id, agentId)).status).toBe("idle");
    expect((await store.listAgents(id)).agents.map((a) => a.agent_id)).toEqual([agentId, second.agent_id]);
    expect((await store.get(id)).agent_ids).toEqual([agentId, second.agent_id]);
    expect((await store.get(id)).title).toBe("Renamed");
    await fs.writeFile(path.join(convDir, "messages.json"), saved);

    // Closing checkpoints: the files hold everything, the log is empty, reads go to disk again.
    await store.closeConversation(id);
    expect(store.isOpen(id)).toBe(false);
    expect((await fs.stat(path.join(convDir, STEP_LOG_FILE))).size).toBe(0);
    expect((await store.readAgentMetadata(id, agentId)).status).toBe("idle");
    expect((await store.readLeaderMessages(id)).title).toBe("Renamed");
    // index.json had the title at once; the agent count follows in the background (IndexKeeper.putSoon).
    await store.flushIndex();
    const index = JSON.parse(await fs.readFile(path.join(store.root, "conversations", "index.json"), "utf8"));
    expect(index[id]).toMatchObject({ title: "Renamed", agent_count: 2 });
  });

  it("sets metadata fields worked out from the leader's new file in the same change, without moving updated_at unless touched", async () => {
    const { store, id, convDir } = await conversation();
    // An old updated_at on disk, so a touch would show.
    const file = path.join(convDir, "metadata.json");
    await fs.writeFile(file, toPythonJson({ ...JSON.parse(await fileText(file)), updated_at: "2026-01-01T00:00:00" }));
    await store.open(id);
    const before = await store.get(id);
    expect(before.updated_at).toBe("2026-01-01T00:00:00");
    const totals = (f: { messages: unknown[] }) => ({ token_totals: { prompt_tokens: 10 * f.messages.length, completion_tokens: 1, total_tokens: 10 * f.messages.length + 1, calls: f.messages.length } });
    await store.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, msg(1)] }), { touch: false, metadata: totals });
    const meta = await store.get(id);
    expect(meta.token_totals).toEqual({ prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, calls: 1 });
    expect(meta.updated_at).toBe(before.updated_at);
    // The list reads it from the index in memory.
    expect((await store.list({ status: "all", offset: 0, limit: 10 })).items.find((i) => i.id === id)?.token_totals).toMatchObject({ calls: 1 });
    // A refused field refuses the whole change: neither file moves.
    await expect(store.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, msg(2)] }), { metadata: () => ({ title: 7 as unknown as string }) })).rejects.toBeInstanceOf(ValidationError);
    expect((await store.readLeaderMessages(id)).messages).toHaveLength(1);
    await store.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, msg(3)] }), { metadata: totals });
    const touched = await store.get(id);
    expect(touched.token_totals).toMatchObject({ calls: 2 });
    expect(touched.updated_at > before.updated_at).toBe(true);
    await store.closeConversation(id);
    expect(JSON.parse(await fileText(file)).token_totals).toMatchObject({ calls: 2, prompt_tokens: 20 });
  });

  it("keeps the fields a leader's step set while a metadata change's mutator was running", async () => {
    const { store, id } = await conversation();
    const live = await store.open(id);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const renaming = live.updateMetadata(async (m) => {
      await held;
      return { ...m, title: "Renamed while counting" };
    });
    await store.updateLeaderMessages(id, (f) => ({ ...f, messages: [...f.messages, msg(1)] }), { touch: false, metadata: () => ({ token_totals: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6, calls: 1 } }) });
    release();
    await renaming;
    const meta = await store.get(id);
    expect(meta.title).toBe("Renamed while counting");
    expect(meta.token_totals).toMatchObject({ calls: 1 });
  });

  it("loses no change made while it closes: the log ends empty and the files hold every change, in order", async () => {
    const { store, id, agentId, convDir } = await conversation();
    const live = await store.open(id);
    const log = path.join(convDir, STEP_LOG_FILE);
    // A loop's step that began before the close, on the object it already holds…
    const inFlight = Array.from({ length: 20 }, (_, i) => live.updateAgentMessages(agentId, (f) => ({ ...f, messages: [...f.messages, msg(100 + i)] })));
    const closing = store.closeConversation(id);
    // …and steps that come after the close began, through the store, interleaved with the checkpoint.
    const later: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      later.push(store.updateAgentMessages(id, agentId, (f) => ({ ...f, messages: [...f.messages, msg(200 + i)] })));
      later.push(store.updateAgentMetadata(id, agentId, (m) => ({ ...m, calls_this_task: i + 1 })));
      if (i % 5 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all([...inFlight, closing, ...later]);
    expect(store.isOpen(id)).toBe(false);
    // Nothing is left for a replay to apply over the files (a replay would undo edits made to them).
    expect((await fs.stat(log)).size).toBe(0);
    const onDisk = JSON.parse(await fileText(path.join(convDir, "agents", String(agentId), "messages.json")));
    const ids = onDisk.messages.map((m: Message) => m.message_id);
    expect(ids).toEqual([...Array.from({ length: 20 }, (_, i) => `msg_${100 + i}`), ...Array.from({ length: 20 }, (_, i) => `msg_${200 + i}`)]);
    expect(JSON.parse(await fileText(path.join(convDir, "agents", String(agentId), "metadata.json"))).calls_this_task).toBe(20);
  });

  it("creates a sub-agent through the step log: made at once with eager, durable in one group, its folder written from memory", async () => {
    const { store, id, convDir } = await conversation();
    const live = await store.open(id);
    const syncs = live.logStats.syncs;
    const agent = await store.createAgent(id, { role_id: "code-reviewer", role_name: "Code Reviewer" }, { eager: true });
    // Made and ordered, nothing on disk yet: no folder, no log sync.
    expect(live.isDurable(live.durableMark)).toBe(false);
    expect(live.agentMetadata(agent.agent_id).display_name).toBe(`Code Reviewer_${agent.agent_id}`);
    expect(live.metadata.agent_ids).toContain(agent.agent_id);
    await expect(fs.access(path.join(convDir, "agents", String(agent.agent_id)))).rejects.toThrow();
    await live.whenDurable();
    // The agent's two files and the conversation's new agent_ids: one sync of the log.
    expect(live.logStats.syncs).toBe(syncs + 1);
    await live.flushed();
    expect((await fs.readdir(path.join(convDir, "agents", String(agent.agent_id)))).sort()).toEqual(["messages.json", "metadata.json"]);
    expect(JSON.parse(await fileText(path.join(convDir, "agents", String(agent.agent_id), "metadata.json")))).toEqual(live.agentMetadata(agent.agent_id));
    await store.closeConversation(id);
  });

  it("brings back, after a crash, a sub-agent whose folder was never written or was cut short, without reporting it", async () => {
    for (const left of ["nothing", "metadata.json only"]) {
      const { store, id, convDir } = await conversation();
      const live = await store.open(id);
      const agent = await store.createAgent(id, { role_id: "code-reviewer", role_name: "Code Reviewer" });
      await live.updateAgentMessages(agent.agent_id, (f) => ({ ...f, messages: [...f.messages, msg(1)] }));
      const expected = { meta: live.agentMetadata(agent.agent_id), messages: live.agentMessages(agent.agent_id) };
      // The crash came before the seed writer had written the folder whole.
      await live.detach();
      const folder = path.join(convDir, "agents", String(agent.agent_id));
      await fs.rm(folder, { recursive: true, force: true });
      if (left !== "nothing") {
        await fs.mkdir(folder);
        await fs.writeFile(path.join(folder, "metadata.json"), toPythonJson(expected.meta));
      }
      const { live: again, report } = await LiveConversation.load(store.root, id, jsonl);
      expect(report.broken).toEqual([]);
      expect(again.agentMetadata(agent.agent_id)).toEqual(expected.meta);
      expect(again.agentMessages(agent.agent_id)).toEqual(expected.messages);
      expect(again.metadata.agent_ids).toContain(agent.agent_id);
      // The replay wrote the folder whole, durably.
      expect(JSON.parse(await fileText(path.join(folder, "messages.json")))).toEqual(expected.messages);
      await again.close();
    }
  });

  it("closes an open conversation before removing it", async () => {
    const { store, id } = await conversation();
    await store.open(id);
    await store.remove(id);
    expect(store.isOpen(id)).toBe(false);
    await expect(store.get(id)).rejects.toThrow(/does not exist/);
  });
});

describe("opening a conversation with a broken sub-agent file", () => {
  it("leaves the agent out and reports the file", async () => {
    const { store, id, agentId, convDir } = await conversation();
    await fs.writeFile(path.join(convDir, "agents", String(agentId), "metadata.json"), "not json");
    await store.open(id);
    const listed = await store.listAgents(id);
    expect(listed.agents).toEqual([]);
    expect(listed.problems.map((p) => p.file)).toEqual([`conversations/${id}/agents/${agentId}/metadata.json`]);
    expect(store.problems().map((p) => p.file)).toContain(`conversations/${id}/agents/${agentId}/metadata.json`);
    await store.closeConversation(id);
  });
});

describe("opening a conversation that a crash left with log records", () => {
  it("replays them while the store holds the conversation's lock (no deadlock) and serves the result", async () => {
    const { store, id, agentId } = await conversation();
    const live = await store.open(id);
    await store.updateAgentMessages(id, agentId, (f) => ({ ...f, messages: [...f.messages, msg(7)] }));
    await live.detach();
    // A new process: a new store over the same folder.
    const next = newConversationStore(store.root);
    await next.init();
    const reopened = await next.open(id, (report) => expect(report.replayed).toBeGreaterThan(0));
    expect(reopened.agentMessages(agentId).messages.map((m) => m.message_id)).toEqual(["msg_7"]);
    await next.closeConversation(id);
  }, 20_000);
});

describe("an agent whose creation a crash cut short", () => {
  it("is an empty claimed folder and a staging folder: skipped without a problem, the staging folder removed", async () => {
    const { store, id, agentId, convDir } = await conversation();
    await fs.mkdir(path.join(convDir, "agents", "999"));
    await fs.mkdir(path.join(convDir, "agents", ".creating-999-abcd1234"));
    await fs.writeFile(path.join(convDir, "agents", ".creating-999-abcd1234", "metadata.json"), "{");
    await store.open(id);
    expect((await store.listAgents(id)).agents.map((a) => a.agent_id)).toEqual([agentId]);
    expect(store.problems()).toEqual([]);
    expect((await fs.readdir(path.join(convDir, "agents"))).sort()).toEqual([String(agentId), "999"].sort());
    await store.closeConversation(id);
  });

  it("never shows one file without the other: both appear with one rename", async () => {
    const { store, id, convDir } = await conversation();
    const agent = await store.createAgent(id, { role_id: "code-reviewer", role_name: "Code Reviewer" });
    expect((await fs.readdir(path.join(convDir, "agents", String(agent.agent_id)))).sort()).toEqual(["messages.json", "metadata.json"]);
    expect((await fs.readdir(path.join(convDir, "agents"))).filter((n) => n.startsWith("."))).toEqual([]);
  });
});

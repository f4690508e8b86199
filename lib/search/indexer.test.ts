import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConversationStore, type Message } from "@/lib/store";
import { newConversationStore } from "@/test/helpers/conversation-store";
import { searchFile, startSearch, SearchQuerySchema, type SearchIndexer, type SearchQuery } from "./index";

let dir: string;
let project: string;
let counter = 0;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-search-"));
  project = path.join(dir, "project");
  await fs.mkdir(project);
});
afterAll(async () => {
  // maxRetries: a background index.json write may still be landing (IndexKeeper.putSoon).
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

async function boot(root: string): Promise<{ store: ConversationStore; search: SearchIndexer }> {
  const store = newConversationStore(root);
  await store.init();
  const search = await startSearch(root, store);
  await search.settled();
  return { store, search };
}

const q = (text: string, filters: Record<string, string> = {}): SearchQuery => SearchQuerySchema.parse({ q: text, ...filters });
const msg = (role: Message["role"], content: string, id: string): Message => ({ role, content, message_id: id });

/** A conversation with two leader messages and one sub-agent with two messages. */
async function seed(store: ConversationStore, title: string, opts: { open?: boolean } = {}) {
  const conv = await store.create({ title, project_path: project, model_key: "offline" });
  if (opts.open) await store.open(conv.id);
  await store.updateLeaderMessages(conv.id, (f) => ({
    ...f,
    messages: [...f.messages, msg("user", `Please plan the ${title} release`, `msg_user_${title}`), msg("assistant", "I will ask the engineer to check the atomic rename.", `msg_a_${title}`)],
  }));
  const agent = await store.createAgent(conv.id, { role_id: "full-stack-engineer", role_name: "Engineer", model_key: "qwen3-max", task_summary: "check" });
  await store.updateAgentMessages(conv.id, agent.agent_id, (f) => ({
    ...f,
    messages: [
      { role: "system", content: "You are: Engineer_1 (system prompt, never indexed) kubernetes", message_id: `sys_${title}` },
      msg("user", "来自 Team Leader 的任务发布\nid: task_001\n\n检查原子写入和临时文件的重命名", `msg_task_${title}`),
      msg("assistant", "Checked: the temp file is renamed over messages.json; kubernetes is not involved.", `msg_done_${title}`),
    ],
  }));
  return { conv, agent };
}

describe("the search index", () => {
  it("finds leader and sub-agent messages, English and Chinese, with filters, as they are saved", async () => {
    const root = path.join(dir, `root-${++counter}`);
    const { store, search } = await boot(root);
    const { conv, agent } = await seed(store, "alpha", { open: true });
    await search.flush();

    const leader = search.search(q("atomic rename"));
    expect(leader.hits.map((h) => [h.conversation_id, h.agent_id, h.message_id, h.message_index])).toEqual([[conv.id, null, "msg_a_alpha", 1]]);
    expect(leader.hits[0]!.conversation_title).toBe("alpha");
    expect(leader.hits[0]!.agent_display_name).toBe("Team Leader");
    expect(leader.hits[0]!.snippet.filter((s) => s.hit).map((s) => s.text)).toEqual(["atomic", "rename"]);

    const chinese = search.search(q("原子写入"));
    expect(chinese.hits.map((h) => [h.agent_id, h.message_id, h.role_id, h.agent_display_name])).toEqual([[agent.agent_id, "msg_task_alpha", "full-stack-engineer", agent.display_name]]);
    expect(chinese.hits[0]!.snippet.filter((s) => s.hit).map((s) => s.text)).toEqual(["原子写入"]);
    // Characters that are not side by side do not match the phrase.
    expect(search.search(q("原写")).hits).toEqual([]);

    // The system prompt is not indexed; the agent's answer is.
    expect(search.search(q("kubernetes")).hits.map((h) => h.message_id)).toEqual(["msg_done_alpha"]);

    // Filters.
    expect(search.search(q("rename", { agent: "leader" })).hits.map((h) => h.message_id)).toEqual(["msg_a_alpha"]);
    expect(search.search(q("rename", { agent: String(agent.agent_id) })).hits.map((h) => h.message_id)).toEqual(["msg_done_alpha"]);
    expect(search.search(q("rename", { role: "full-stack-engineer" })).hits.map((h) => h.message_id)).toEqual(["msg_done_alpha"]);
    expect(search.search(q("rename", { role: "researcher" })).hits).toEqual([]);
    expect(search.search(q("检查", { agent: String(agent.agent_id), message_role: "user" })).hits.map((h) => h.message_id)).toEqual(["msg_task_alpha"]);
    expect(search.search(q("rename", { model: "qwen3-max", message_role: "assistant" })).hits.map((h) => h.message_id)).toEqual(["msg_done_alpha"]);
    expect(search.search(q("rename", { model: "offline" })).hits.map((h) => h.message_id)).toEqual(["msg_a_alpha"]);
    expect(search.search(q("rename", { status: "archived" })).hits).toEqual([]);
    const day = conv.created_at.slice(0, 10);
    expect(search.search(q("atomic", { from: day, to: day })).hits).toHaveLength(1);
    expect(search.search(q("atomic", { to: "2020-01-01" })).hits).toHaveLength(0);

    // Archiving moves the status filter; deleting removes the rows.
    await store.update(conv.id, { status: "archived" });
    await search.flush();
    expect(search.search(q("rename", { status: "archived" })).hits).toHaveLength(2);
    expect(search.search(q("rename", { status: "active" })).hits).toHaveLength(0);
    await store.remove(conv.id);
    await search.flush();
    expect(search.search(q("rename")).hits).toEqual([]);
    expect(search.report().messages).toBe(0);
    await search.close();
    await store.closeConversation(conv.id);
  });
});

describe("the search index across restarts", () => {
  it("survives a restart without re-reading unchanged conversations, and is rebuilt from the files when missing", async () => {
    const root = path.join(dir, `root-${++counter}`);
    let { store, search } = await boot(root);
    await seed(store, "beta");
    await seed(store, "gamma");
    await search.close();

    ({ store, search } = await boot(root));
    expect(search.report().rebuilds).toEqual([]);
    expect(search.report().reconciled).toBe(0);
    expect(search.search(q("原子写入")).hits).toHaveLength(2);
    await search.close();

    await fs.rm(searchFile(root));
    ({ store, search } = await boot(root));
    const report = search.report();
    expect(report.rebuilds).toHaveLength(1);
    expect(report.rebuilds[0]).toMatchObject({ reason: "missing", conversations: 2, messages: 8 });
    expect(search.notices()[0]!.message).toMatch(/history\.sqlite was missing; it was rebuilt from 2 conversation/);
    expect(search.search(q("release")).hits.map((h) => h.conversation_title).sort()).toEqual(["beta", "gamma"]);
    await search.close();
  });

  it("moves a broken database aside and rebuilds it", async () => {
    const root = path.join(dir, `root-${++counter}`);
    let { store, search } = await boot(root);
    await seed(store, "delta");
    await search.close();
    await fs.writeFile(searchFile(root), "this is not a database, it is a text file of the same name");
    await fs.rm(`${searchFile(root)}-wal`, { force: true });
    ({ store, search } = await boot(root));
    const rebuild = search.report().rebuilds[0]!;
    expect(rebuild.reason).toBe("corrupt");
    expect(rebuild.message).toMatch(/moved to search\/history\.sqlite\.corrupt-\d{14}/);
    const aside = (await fs.readdir(path.join(root, "search"))).filter((n) => n.includes(".corrupt-"));
    expect(aside).toHaveLength(1);
    expect(await fs.readFile(path.join(root, "search", aside[0]!), "utf8")).toMatch(/not a database/);
    expect(search.search(q("delta")).hits.length).toBeGreaterThan(0);
    await search.close();
  });

  it("finds after a restart a message saved just before a crash, whose index write never happened", async () => {
    const root = path.join(dir, `root-${++counter}`);
    let { store, search } = await boot(root);
    const { conv, agent } = await seed(store, "epsilon", { open: true });
    await search.close(); // the index holds everything so far
    // The process "dies": the store goes on saving (its step log makes each change durable), the
    // index hears nothing more. An agent-only change does not move the conversation's updated_at.
    const live = await store.open(conv.id);
    await live.flushed(); // metadata.json on disk as the index last saw it
    await store.updateAgentMessages(conv.id, agent.agent_id, (f) => ({ ...f, messages: [...f.messages, msg("assistant", "saved right before the crash: zirconium", "msg_late")] }));
    await store.updateLeaderMessages(conv.id, (f) => ({ ...f, messages: [...f.messages, msg("assistant", "the leader's last words: yttrium", "msg_late_leader")] }), { touch: false });
    await live.detach(); // the seed files are left as a crash leaves them: the log replays at the next load

    ({ store, search } = await boot(root));
    // Not re-read at start (its updated_at did not move)…
    expect(search.search(q("zirconium")).hits).toEqual([]);
    // …but when the engine loads it (as every active conversation at boot), memory is compared with the watermarks.
    await store.open(conv.id);
    await search.flush();
    expect(search.search(q("zirconium")).hits.map((h) => [h.agent_id, h.message_id])).toEqual([[agent.agent_id, "msg_late"]]);
    expect(search.search(q("yttrium")).hits.map((h) => [h.agent_id, h.message_id])).toEqual([[null, "msg_late_leader"]]);
    expect(search.report().reconciled).toBe(1);
    await search.close();
    await store.closeConversation(conv.id);
  });

  it("re-reads at start a conversation whose metadata moved on while the index was not written", async () => {
    const root = path.join(dir, `root-${++counter}`);
    const first = await boot(root);
    const { conv } = await seed(first.store, "zeta");
    await first.search.close();
    // A store without the index (another process, or changes the index never heard of).
    const bare = newConversationStore(root);
    await bare.init();
    await bare.updateLeaderMessages(conv.id, (f) => ({ ...f, messages: [...f.messages, msg("user", "one more thing: hafnium", "msg_more")] }));
    await bare.update(conv.id, { status: "archived" });
    const { search } = await boot(root);
    expect(search.report().reconciled).toBe(1);
    expect(search.search(q("hafnium", { status: "archived" })).hits.map((h) => h.message_id)).toEqual(["msg_more"]);
    await search.close();
  });
});

describe("the search index with broken files", () => {
  it("forgets what it held of a conversation whose folder an import replaced, and reads the new one afresh", async () => {
    const root = path.join(dir, `root-${++counter}`);
    const { store, search } = await boot(root);
    const { conv, agent } = await seed(store, "gamma");
    await search.flush();
    expect(search.search(q("kubernetes")).hits.map((h) => h.message_id)).toEqual(["msg_done_gamma"]);

    // The imported folder: the same files, but the agent's last message says something else under
    // the same id, so the file's watermark (count, last id, updated_at) is unchanged.
    const folder = path.join(root, "conversations", conv.id);
    const files = new Map<string, Uint8Array>();
    const walk = async (rel: string): Promise<void> => {
      for (const entry of await fs.readdir(path.join(folder, rel), { withFileTypes: true })) {
        const child = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) await walk(child);
        else if (entry.name !== "steps.jsonl") files.set(child, await fs.readFile(path.join(folder, child)));
      }
    };
    await walk("");
    const agentFile = `agents/${agent.agent_id}/messages.json`;
    files.set(agentFile, Buffer.from(Buffer.from(files.get(agentFile)!).toString("utf8").replace("kubernetes is not involved", "zeppelin replaced it")));
    await store.installConversation(conv.id, "replace", () => files);
    await search.flush();

    expect(search.search(q("kubernetes")).hits).toEqual([]);
    expect(search.search(q("zeppelin")).hits.map((h) => [h.conversation_id, h.message_id])).toEqual([[conv.id, "msg_done_gamma"]]);
    // The rest of the conversation is still found.
    expect(search.search(q("atomic rename")).hits.map((h) => h.message_id)).toEqual(["msg_a_gamma"]);
    await search.close();
  });

  it("leaves a broken messages.json out and indexes every other file", async () => {
    const root = path.join(dir, `root-${++counter}`);
    let { store, search } = await boot(root);
    const broken = await seed(store, "eta");
    await seed(store, "theta");
    await search.close();
    await fs.rm(searchFile(root));
    await fs.writeFile(path.join(root, "conversations", broken.conv.id, "messages.json"), '{"id": "broken", "messages": [');
    ({ store, search } = await boot(root));
    expect(search.report()).toMatchObject({ state: "ready", error: null });
    expect(search.search(q("release")).hits.map((h) => h.conversation_title)).toEqual(["theta"]);
    // The broken conversation's sub-agent is still found. Agents are numbered within their
    // conversation: the agent filter (1) matches the first agent of each conversation.
    const hits = search.search(q("kubernetes", { agent: String(broken.agent.agent_id) })).hits.map((h) => [h.conversation_id, h.agent_id, h.message_id]);
    expect(hits).toEqual(expect.arrayContaining([[broken.conv.id, 1, "msg_done_eta"], [expect.not.stringMatching(broken.conv.id), 1, "msg_done_theta"]]));
    expect(hits).toHaveLength(2);
    expect(store.problems().map((p) => p.file)).toContain(`conversations/${broken.conv.id}/messages.json`);
    await search.close();
  });
});

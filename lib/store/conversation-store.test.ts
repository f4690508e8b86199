import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CorruptFileError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { AGENT_COUNTER_BLOCK } from "./agent-counter";
import {
  ConversationStore,
  CONVERSATION_ID_PATTERN,
  FileQueues,
  IndexFileSchema,
  readJsonFile,
  StateFileSchema,
  toPythonJson,
  updateJsonFile,
  ConversationMetadataSchema,
  conversationIdPrefix,
  type Message,
} from "./index";
import { newConversationStore, newStoreParts, type StoreParts } from "@/test/helpers/conversation-store";

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const ID = /^conv_\d{8}_\d{6}_\d{3}$/;

let dir: string;
let project: string;
let counter = 0;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-store-"));
  project = path.join(dir, "project");
  await fs.mkdir(project);
});
afterAll(async () => {
  // maxRetries: a background index.json write may still be landing (IndexKeeper.putSoon).
  await fs.rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** A new, initialized store in its own data folder. */
async function freshStore(parts: StoreParts = newStoreParts()): Promise<ConversationStore> {
  const store = newConversationStore(path.join(dir, `root-${++counter}`), parts);
  await store.init();
  return store;
}

/** A new store on the same data folder, booted: what a server restart does. */
async function restart(store: ConversationStore): Promise<ConversationStore> {
  const restarted = newConversationStore(store.root);
  await restarted.init();
  return restarted;
}

async function readText(file: string): Promise<string> {
  return fs.readFile(file, "utf8");
}

async function readJson(file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readText(file)) as Record<string, unknown>;
}

async function catchError(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function convFile(store: ConversationStore, id: string, ...rest: string[]) {
  return path.join(store.root, "conversations", id, ...rest);
}

// ---------------------------------------------------------------------------------------------
// The seed's JSON examples (seed 000 §3–§8.3), copied as they are. Placeholders the seed writes as
// `[...]` / `{ ... }` are filled with concrete values of that shape.

const SEED_STATE = {
  version: "1.0",
  last_conversation_id: "conv_xxx",
  agent_id_counter: 5,
  created_at: "2026-07-11T21:00:00",
  updated_at: "2026-07-11T21:30:00",
};

const SEED_CONVERSATION = {
  id: "conv_20260711_210000_001",
  title: "多智能体任务：设计前端",
  created_at: "2026-07-11T21:00:00",
  updated_at: "2026-07-11T21:30:00",
  project_path: "/Users/jojo/project",
  model_key: "qwen3-max",
  thinking_mode: true,
  run_mode: "thinking",
  status: "active",
  agent_count: 3,
  agent_ids: [1, 2, 3],
};

const SEED_TOOL_CALLS = [
  {
    id: "call_001",
    type: "function" as const,
    function: { name: "create_sub_agent", arguments: '{"role_id": "ui-operator", "task": "设计前端配色方案"}' },
  },
];

const SEED_LEADER_MESSAGES: Message[] = [
  {
    role: "user",
    content: "帮我设计一个前端页面",
    message_id: "msg_user_001",
    metadata: { message_source: "user", visibility: "chat", starts_work: true },
  },
  {
    role: "assistant",
    content: "我来安排 UI Operator 处理这个任务...",
    message_id: "msg_assistant_001",
    tool_calls: SEED_TOOL_CALLS,
  },
  {
    role: "user",
    content: "来自 UI Operator_1 的任务完成汇报\nid: out_uio_001\n\n\n\n我完成了前端配色的设计...\n\n",
    message_id: "msg_auto_001",
    metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false, agent_id: 1 },
  },
];

const SEED_LEADER_FILE = {
  id: "conv_20260711_210000_001",
  title: "多智能体任务：设计前端",
  created_at: "2026-07-11T21:00:00",
  updated_at: "2026-07-11T21:30:00",
  messages: SEED_LEADER_MESSAGES,
  metadata: {},
  token_statistics: {},
};

const SEED_AGENT = {
  agent_id: 1,
  role_id: "ui-operator",
  display_name: "UI Operator_1",
  status: "running",
  created_at: "2026-07-11T21:05:00",
  updated_at: "2026-07-11T21:15:00",
  task_summary: "设计前端配色方案",
  model_key: "qwen3-max",
  thinking_mode: "fast",
  pending_messages: [
    {
      id: "msg_tl_001",
      source_display_name: "Team Leader",
      source_agent_id: null,
      message_type: "message",
      content: "先不要创建 API...",
      created_at: 1752251700.0,
    },
  ],
  pending_tool_calls: [
    { tool_call_id: "tc_ask_001", tool_name: "ask_master", question_id: "ask_uio_001", created_at: 1752251800.0 },
  ],
};

const SEED_AGENT_MESSAGES_LIST: Message[] = [
  { role: "system", content: "你是智能体集群团队的一员..." },
  {
    role: "user",
    content: "来自 Team Leader 的任务发布\nid: task_001\n\n\n\n请为项目设计前端配色方案...\n\n",
    message_id: "msg_user_001",
  },
  { role: "assistant", content: "我先分析一下现有设计风格...", message_id: "msg_assistant_001" },
  {
    role: "user",
    content: "来自 Team Leader 的消息\nid: msg_tl_001\n\n\n\n先不要创建 API...\n\n",
    message_id: "msg_user_002",
  },
  { role: "assistant", content: "好的，我先确认现有 auth 模块...", message_id: "msg_assistant_002" },
];

const SEED_AGENT_MESSAGES = {
  agent_id: 1,
  role_id: "ui-operator",
  display_name: "UI Operator_1",
  created_at: "2026-07-11T21:05:00",
  updated_at: "2026-07-11T21:15:00",
  messages: SEED_AGENT_MESSAGES_LIST,
};

const SEED_INDEX_ENTRY = {
  title: "多智能体任务：设计前端",
  created_at: "2026-07-11T21:00:00",
  updated_at: "2026-07-11T21:30:00",
  agent_count: 3,
};

describe("the seed's examples, built through the store", () => {
  it("match field for field, in the seed's key order, written as Python writes them", async () => {
    const store = await freshStore();

    // §3 state.json straight after init.
    const initialState = await readJson(path.join(store.root, "state.json"));
    expect(initialState).toEqual({
      version: "1.0",
      last_conversation_id: null,
      agent_id_counter: 0,
      created_at: expect.stringMatching(TS),
      updated_at: expect.stringMatching(TS),
    });
    expect(await readJson(path.join(store.root, "conversations", "index.json"))).toEqual({});
    expect((await fs.stat(path.join(store.root, "agents"))).isDirectory()).toBe(true);

    const conv = await store.create({
      title: SEED_CONVERSATION.title,
      project_path: project,
      model_key: "qwen3-max",
      run_mode: "thinking",
    });
    const agents = [];
    agents.push(
      await store.createAgent(conv.id, {
        role_id: "ui-operator",
        role_name: "UI Operator",
        model_key: "qwen3-max",
        thinking_mode: "fast",
        task_summary: "设计前端配色方案",
      }),
    );
    agents.push(await store.createAgent(conv.id, { role_id: "full-stack-engineer", role_name: "Full Stack Engineer" }));
    agents.push(await store.createAgent(conv.id, { role_id: "code-reviewer", role_name: "Code Reviewer" }));
    expect(agents.map((a) => a.display_name)).toEqual(["UI Operator_1", "Full Stack Engineer_2", "Code Reviewer_3"]);

    await store.updateLeaderMessages(conv.id, (m) => ({ ...m, messages: [...m.messages, ...SEED_LEADER_MESSAGES] }));
    await store.updateAgentMetadata(conv.id, 1, (a) => ({
      ...a,
      pending_messages: SEED_AGENT.pending_messages,
      pending_tool_calls: SEED_AGENT.pending_tool_calls,
    }));
    await store.updateAgentMessages(conv.id, 1, (m) => ({ ...m, messages: SEED_AGENT_MESSAGES_LIST }));

    // §4 conversation metadata.json (plus `phase`, this product's addition, after the seed's fields).
    const metaFile = convFile(store, conv.id, "metadata.json");
    const meta = await readJson(metaFile);
    expect(meta).toEqual({
      ...SEED_CONVERSATION,
      id: expect.stringMatching(ID),
      created_at: expect.stringMatching(TS),
      updated_at: expect.stringMatching(TS),
      project_path: project,
      phase: "IDLE",
    });
    expect(Object.keys(meta)).toEqual([...Object.keys(SEED_CONVERSATION), "phase"]);
    expect(meta.id).toBe(conv.id);

    // §5 leader messages.json.
    const leaderFile = convFile(store, conv.id, "messages.json");
    const leader = await readJson(leaderFile);
    expect(leader).toEqual({
      ...SEED_LEADER_FILE,
      id: conv.id,
      created_at: meta.created_at,
      updated_at: expect.stringMatching(TS),
    });
    expect(Object.keys(leader)).toEqual(Object.keys(SEED_LEADER_FILE));
    expect(Object.keys((leader.messages as object[])[2] as object)).toEqual(["role", "content", "message_id", "metadata"]);

    // §6 sub-agent metadata.json.
    const agentFile = convFile(store, conv.id, "agents", "1", "metadata.json");
    const agent = await readJson(agentFile);
    expect(agent).toEqual({ ...SEED_AGENT, created_at: expect.stringMatching(TS), updated_at: expect.stringMatching(TS) });
    expect(Object.keys(agent)).toEqual(Object.keys(SEED_AGENT));
    const agentText = await readText(agentFile);
    expect(agentText).toContain('"created_at": 1752251700.0');
    expect(agentText).toContain('"created_at": 1752251800.0');
    expect(agentText).toContain('"source_agent_id": null');

    // Sub-agents created without options take the conversation's model and mode.
    expect(await readJson(convFile(store, conv.id, "agents", "2", "metadata.json"))).toMatchObject({
      agent_id: 2,
      role_id: "full-stack-engineer",
      display_name: "Full Stack Engineer_2",
      status: "running",
      task_summary: "",
      model_key: "qwen3-max",
      thinking_mode: "thinking",
      pending_messages: [],
      pending_tool_calls: [],
    });

    // §7 sub-agent messages.json.
    const agentMessagesFile = convFile(store, conv.id, "agents", "1", "messages.json");
    const agentMessages = await readJson(agentMessagesFile);
    expect(agentMessages).toEqual({
      ...SEED_AGENT_MESSAGES,
      created_at: agent.created_at,
      updated_at: expect.stringMatching(TS),
    });
    expect(Object.keys(agentMessages)).toEqual(Object.keys(SEED_AGENT_MESSAGES));

    // §8.3 index.json.
    const index = await readJson(path.join(store.root, "conversations", "index.json"));
    expect(Object.keys(index)).toEqual([conv.id]);
    expect(index[conv.id]).toEqual({
      ...SEED_INDEX_ENTRY,
      created_at: meta.created_at,
      updated_at: meta.updated_at,
    });
    expect(Object.keys(index[conv.id] as object)).toEqual(Object.keys(SEED_INDEX_ENTRY));

    // §3 state.json after the conversation and its three agents: the count of agent instances is
    // at or past the three, one block of it reserved at once (lib/store/agent-counter.ts).
    const state = await readJson(path.join(store.root, "state.json"));
    expect(state).toEqual({
      ...SEED_STATE,
      last_conversation_id: conv.id,
      agent_id_counter: AGENT_COUNTER_BLOCK,
      created_at: initialState.created_at,
      updated_at: expect.stringMatching(TS),
    });
    expect(Object.keys(state)).toEqual(Object.keys(SEED_STATE));

    // Every file is exactly what Python's json.dumps(..., ensure_ascii=False, indent=2) writes.
    for (const file of [
      metaFile,
      leaderFile,
      agentFile,
      agentMessagesFile,
      path.join(store.root, "conversations", "index.json"),
      path.join(store.root, "state.json"),
    ]) {
      const text = await readText(file);
      expect(text).toBe(toPythonJson(JSON.parse(text)));
      expect(text).not.toMatch(/\\u[0-9a-f]{4}/i); // Chinese text is written as itself
    }
    expect(await readText(metaFile)).toContain('"title": "多智能体任务：设计前端"');
  });
});

describe("create", () => {
  it("defaults the title, derives thinking_mode from run_mode, and makes ids in the seed's pattern", async () => {
    const store = await freshStore();
    const a = await store.create({ project_path: project, model_key: "offline" });
    expect(a).toMatchObject({
      title: "Untitled conversation",
      run_mode: "fast",
      thinking_mode: false,
      status: "active",
      phase: "IDLE",
    });
    expect(a.id).toMatch(ID);
    const b = await store.create({ title: "   ", project_path: project + "/", model_key: "m", run_mode: "deep" });
    expect(b).toMatchObject({ title: "Untitled conversation", thinking_mode: true, project_path: project });
    expect(b.id).not.toBe(a.id);
  });

  it.each([
    ["relative/path", "must be an absolute path", "not_absolute"],
    ["", "a project folder is required", "required"],
    ["/definitely/not/here/astrion", "does not exist", "not_found"],
    ["/", "root of the whole file system", "filesystem_root"],
    ["/etc", "system folder", "system_folder"],
  ])("rejects project_path %j", async (projectPath, message, reason) => {
    const store = await freshStore();
    const error = (await catchError(store.create({ project_path: projectPath, model_key: "m" }))) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.details).toEqual([{ path: "project_path", message: expect.stringContaining(message), reason }]);
    expect(await fs.readdir(path.join(store.root, "conversations"))).toEqual(["index.json"]);
  });

  it("rejects a title over 200 characters", async () => {
    const store = await freshStore();
    const error = (await catchError(
      store.create({ title: "长".repeat(201), project_path: project, model_key: "m" }),
    )) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.details).toEqual([{ path: "title", message: "at most 200 characters" }]);
  });

  it("rejects a project_path that is a file", async () => {
    const store = await freshStore();
    const file = path.join(dir, "a-file.txt");
    await fs.writeFile(file, "x");
    const error = (await catchError(store.create({ project_path: file, model_key: "m" }))) as ValidationError;
    expect(error.details).toEqual([{ path: "project_path", message: expect.stringContaining("is not a folder"), reason: "not_a_folder" }]);
  });

  it("rejects its own data folder, a folder inside it and a folder containing it", async () => {
    const store = await freshStore();
    const cases: Array<[string, string]> = [
      [store.root, "inside_data_folder"],
      [path.join(store.root, "conversations"), "inside_data_folder"],
      [`${store.root}/./agents/`, "inside_data_folder"],
      [dir, "contains_data_folder"],
    ];
    for (const [projectPath, reason] of cases) {
      const error = (await catchError(store.create({ project_path: projectPath, model_key: "m" }))) as ValidationError;
      expect(error, projectPath).toBeInstanceOf(ValidationError);
      expect(error.details, projectPath).toEqual([{ path: "project_path", reason, folder: store.root, message: expect.stringContaining(store.root) }]);
    }
    expect(await fs.readdir(path.join(store.root, "conversations"))).toEqual(["index.json"]);
  });

  it("gives 200 concurrent creates 200 distinct ids and an index with 200 entries", async () => {
    const store = await freshStore();
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) => store.create({ title: `T${i}`, project_path: project, model_key: "m" })),
    );
    const ids = created.map((c) => c.id);
    expect(new Set(ids).size).toBe(200);
    for (const id of ids) expect(id).toMatch(CONVERSATION_ID_PATTERN);
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(Object.keys(index).sort()).toEqual([...ids].sort());
    for (const c of created) expect(index[c.id]?.title).toBe(c.title);
    const dirs = (await fs.readdir(path.join(store.root, "conversations"))).filter((n) => n !== "index.json");
    expect(dirs.sort()).toEqual([...ids].sort());
    const state = await readJsonFile(path.join(store.root, "state.json"), StateFileSchema);
    const newest = [...ids].sort((x, y) => (x.length - y.length) || (x < y ? -1 : 1)).at(-1);
    expect(state.last_conversation_id).toBe(newest);
    expect((await store.list({ status: "all", limit: 100 })).total).toBe(200);
  });

  it("skips sequence numbers already taken by folders on disk (e.g. by another process)", async () => {
    const store = await freshStore();
    const first = await store.create({ project_path: project, model_key: "m" });
    // Claim the next ten numbers of this second (and of the current one) behind the store's back.
    for (const prefix of new Set([first.id.slice(0, 20), conversationIdPrefix()])) {
      for (let seq = 1; seq <= 10; seq++) {
        await fs.mkdir(path.join(store.root, "conversations", `${prefix}_${String(seq).padStart(3, "0")}`), {
          recursive: true,
        });
      }
    }
    const second = await store.create({ project_path: project, model_key: "m" });
    expect(second.id).not.toBe(first.id);
    expect((await fs.readdir(convFile(store, second.id))).sort()).toEqual(["messages.json", "metadata.json"]);
  });
});

describe("get, update and remove", () => {
  it("rejects malformed ids before touching the disk", async () => {
    const store = await freshStore();
    for (const bad of ["..", "../state.json", "%2e%2e", "conv_../x", "conv_20260711_210000_001\0", "x"]) {
      expect(await catchError(store.get(bad))).toBeInstanceOf(ValidationError);
      expect(await catchError(store.update(bad, { title: "x" }))).toBeInstanceOf(ValidationError);
      expect(await catchError(store.remove(bad))).toBeInstanceOf(ValidationError);
      expect(await catchError(store.readLeaderMessages(bad))).toBeInstanceOf(ValidationError);
      expect(await catchError(store.listAgents(bad))).toBeInstanceOf(ValidationError);
    }
    expect(await catchError(store.get("conv_20260711_210000_001"))).toBeInstanceOf(NotFoundError);
  });

  it("reads an open conversation's metadata from memory without a copy, and a change replaces it, never changing what a reader holds", async () => {
    const store = await freshStore();
    const conv = await store.create({ title: "Held", project_path: project, model_key: "m" });
    await store.open(conv.id);
    const first = await store.get(conv.id);
    expect(await store.get(conv.id)).toBe(first);
    const updated = await store.update(conv.id, { title: "Changed" });
    expect(await store.get(conv.id)).toBe(updated);
    expect(first.title).toBe("Held");
    await store.update(conv.id, (m) => {
      m.agent_ids.push(7); // a mutator works on a copy
      return m;
    });
    expect(updated.agent_ids).toEqual([]);
    expect((await store.get(conv.id)).agent_ids).toEqual([7]);
    await store.closeConversation(conv.id);
  });

  it("closeAll waits for a close under way: when it resolves, every conversation is checkpointed (empty step log) and let go", async () => {
    const store = await freshStore();
    const conv = await store.create({ title: "Closing", project_path: project, model_key: "m" });
    const live = await store.open(conv.id);
    await live.updateLeader((f) => ({ ...f, messages: [...f.messages, { role: "user", content: "hello", message_id: "msg_close_1" }] }));
    const log = convFile(store, conv.id, "steps.jsonl");
    expect((await fs.stat(log)).size).toBeGreaterThan(0);
    const releasing = store.closeConversation(conv.id); // an idle release, not awaited
    await store.closeAll();
    expect((await fs.stat(log).catch(() => null))?.size ?? 0).toBe(0);
    expect(store.isOpen(conv.id)).toBe(false);
    await releasing;
  });

  it("keeps metadata.json, messages.json and index.json in step on update", async () => {
    const store = await freshStore();
    const conv = await store.create({ title: "Before", project_path: project, model_key: "m" });
    const updated = await store.update(conv.id, { title: "After", status: "archived", phase: "ENGAGED" });
    expect(updated).toMatchObject({ title: "After", status: "archived", phase: "ENGAGED" });
    expect(await store.get(conv.id)).toEqual(updated);
    const leader = await store.readLeaderMessages(conv.id);
    expect(leader.title).toBe("After");
    expect(leader.updated_at).toBe(updated.updated_at);
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(index[conv.id]).toEqual({
      title: "After",
      created_at: conv.created_at,
      updated_at: updated.updated_at,
      agent_count: 0,
    });
  });

  it("refuses bad patches and id changes without writing", async () => {
    const store = await freshStore();
    const conv = await store.create({ title: "Keep", project_path: project, model_key: "m" });
    const before = await readText(convFile(store, conv.id, "metadata.json"));
    const bad = [
      { title: "" },
      { status: "deleted" },
      { phase: "NAPPING" },
      { agent_ids: [0] },
      { project_path: "/elsewhere" },
    ] as unknown as Parameters<ConversationStore["update"]>[1][];
    for (const patch of bad) {
      expect(await catchError(store.update(conv.id, patch))).toBeInstanceOf(ValidationError);
    }
    expect(await catchError(store.update(conv.id, (m) => ({ ...m, id: "conv_20200101_000000_001" })))).toBeInstanceOf(
      ValidationError,
    );
    expect(await catchError(store.update(conv.id, (m) => ({ ...m, status: "gone" as "active" })))).toBeInstanceOf(
      ValidationError,
    );
    expect(await readText(convFile(store, conv.id, "metadata.json"))).toBe(before);
  });

  it("two stores built from one FileQueues (two route bundles of one process) serialize their writes of one file: none of 100 is lost", async () => {
    const parts = newStoreParts();
    const a = await freshStore(parts);
    const conv = await a.create({ project_path: project, model_key: "m" });
    const b = newConversationStore(a.root, parts);
    await b.init();
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? a : b).update(conv.id, async (m) => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
          return { ...m, agent_ids: [...m.agent_ids, i + 1], agent_count: m.agent_count + 1 };
        }),
      ),
    );
    const final = await readJsonFile(convFile(a, conv.id, "metadata.json"), ConversationMetadataSchema);
    expect(final.agent_count).toBe(100);
    expect([...final.agent_ids].sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it("loses none of 100 concurrent updates of one conversation (update() and updateJsonFile mixed, given the store's write queues)", async () => {
    const parts = newStoreParts();
    const store = await freshStore(parts);
    const conv = await store.create({ project_path: project, model_key: "m" });
    const metaFile = convFile(store, conv.id, "metadata.json");
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const add = async <T extends { agent_ids: number[]; agent_count: number }>(m: T): Promise<T> => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
          return { ...m, agent_ids: [...m.agent_ids, i + 1], agent_count: m.agent_count + 1 };
        };
        return i % 2 === 0 ? store.update(conv.id, add) : updateJsonFile(parts.queues, metaFile, ConversationMetadataSchema, add);
      }),
    );
    const final = await store.get(conv.id);
    expect(final.agent_count).toBe(100);
    expect([...final.agent_ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it("loses none of 100 concurrent leader-message appends and touches the conversation", async () => {
    const store = await freshStore();
    const conv = await store.create({ project_path: project, model_key: "m" });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        store.updateLeaderMessages(conv.id, (m) => ({
          ...m,
          messages: [...m.messages, { role: "user", content: `第 ${i} 条`, message_id: `msg_user_${i}` }],
        })),
      ),
    );
    const leader = await store.readLeaderMessages(conv.id);
    expect(leader.messages).toHaveLength(100);
    expect(new Set(leader.messages.map((m) => m.message_id)).size).toBe(100);
    const meta = await store.get(conv.id);
    expect(meta.updated_at).toBe(leader.updated_at);
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(index[conv.id]?.updated_at).toBe(leader.updated_at);
  });

  it("remove deletes the folder and index entry and repoints last_conversation_id", async () => {
    const store = await freshStore();
    const a = await store.create({ title: "A", project_path: project, model_key: "m" });
    const b = await store.create({ title: "B", project_path: project, model_key: "m" });
    await store.createAgent(b.id, { role_id: "r", role_name: "R" });
    const statePath = path.join(store.root, "state.json");
    expect((await readJsonFile(statePath, StateFileSchema)).last_conversation_id).toBe(b.id);

    await store.remove(b.id);
    await expect(fs.access(convFile(store, b.id))).rejects.toThrow();
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(Object.keys(index)).toEqual([a.id]);
    const state = await readJsonFile(statePath, StateFileSchema);
    expect(state.last_conversation_id).toBe(a.id);
    expect(state.agent_id_counter).toBe(AGENT_COUNTER_BLOCK); // the count of instances does not go down: agent 1 and its block
    expect(await catchError(store.get(b.id))).toBeInstanceOf(NotFoundError);
    expect(await catchError(store.remove(b.id))).toBeInstanceOf(NotFoundError);

    await store.remove(a.id);
    expect((await readJsonFile(statePath, StateFileSchema)).last_conversation_id).toBeNull();
    expect(await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema)).toEqual({});
    expect((await store.list({ status: "all" })).total).toBe(0);
  });
});

describe("list", () => {
  it("filters by status and title, pages, and orders newest first", async () => {
    const first = await freshStore();
    const titles = ["Design the Frontend", "后端 API 设计", "frontend review", "Release notes"];
    const made = [];
    for (const title of titles) made.push(await first.create({ title, project_path: project, model_key: "m" }));
    // Give them distinct updated_at values, oldest first, without waiting for the clock: edits
    // behind the store's back, which it reads at its next start.
    for (const [i, c] of made.entries()) {
      await updateJsonFile(new FileQueues(), convFile(first, c.id, "metadata.json"), ConversationMetadataSchema, (m) => ({
        ...m,
        updated_at: `2026-07-1${i}T10:00:00`,
      }));
    }
    const store = await restart(first);
    await store.update(made[3]!.id, { status: "archived" });

    const active = await store.list({});
    expect(active.items.map((i) => i.title)).toEqual(["frontend review", "后端 API 设计", "Design the Frontend"]);
    expect(active).toMatchObject({ total: 3, offset: 0, limit: 20, problems: [] });
    expect(active.items[0]).toEqual({
      id: made[2]!.id,
      title: "frontend review",
      created_at: made[2]!.created_at,
      updated_at: "2026-07-12T10:00:00",
      agent_count: 0,
      status: "active",
      phase: "IDLE",
      model_key: "m",
      run_mode: "fast",
      project_path: project,
    });

    expect((await store.list({ status: "archived" })).items.map((i) => i.title)).toEqual(["Release notes"]);
    expect((await store.list({ status: "all" })).items.map((i) => i.title)).toEqual([
      "Release notes",
      "frontend review",
      "后端 API 设计",
      "Design the Frontend",
    ]);
    expect((await store.list({ q: "FRONTEND" })).items.map((i) => i.title)).toEqual([
      "frontend review",
      "Design the Frontend",
    ]);
    expect((await store.list({ q: "api 设计" })).items.map((i) => i.title)).toEqual(["后端 API 设计"]);
    const page = await store.list({ status: "all", offset: 1, limit: 2 });
    expect(page.items.map((i) => i.title)).toEqual(["frontend review", "后端 API 设计"]);
    expect(page).toMatchObject({ total: 4, offset: 1, limit: 2 });
    expect(await catchError(store.list({ limit: 0 }))).toBeInstanceOf(ValidationError);
  });

  it("orders conversations updated in the same second by id, newest first", async () => {
    const first = await freshStore();
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await first.create({ title: `S${i}`, project_path: project, model_key: "m" }));
    // The newest conversation gets the oldest time, so only the id decides among the other two.
    for (const [i, c] of made.entries()) {
      await updateJsonFile(new FileQueues(), convFile(first, c.id, "metadata.json"), ConversationMetadataSchema, (m) => ({
        ...m,
        updated_at: i === 2 ? "2026-07-11T20:59:59" : "2026-07-11T21:00:00",
      }));
    }
    const store = await restart(first);
    expect((await store.list({})).items.map((i) => i.id)).toEqual([made[1]!.id, made[0]!.id, made[2]!.id]);
    // An update moves a conversation to the front, and ties keep their id order.
    await store.update(made[2]!.id, (m) => ({ ...m }));
    expect((await store.list({})).items.map((i) => i.id)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
  });

  it("searches titles and project folders, case-insensitively, with the status filter and paging", async () => {
    const store = await freshStore();
    const other = path.join(dir, "Other-Repo");
    await fs.mkdir(other, { recursive: true });
    const a = await store.create({ title: "Alpha", project_path: project, model_key: "m" });
    const b = await store.create({ title: "Beta", project_path: other, model_key: "m" });
    const c = await store.create({ title: "other ideas", project_path: project, model_key: "m" });
    await store.update(a.id, { status: "archived" });
    const ids = async (query: Parameters<ConversationStore["list"]>[0]) => (await store.list(query)).items.map((i) => i.id).sort();

    expect(await ids({ q: "other" })).toEqual([b.id, c.id].sort());
    expect(await ids({ q: "OTHER-REPO" })).toEqual([b.id]);
    expect(await ids({ q: path.basename(project), status: "all" })).toEqual([a.id, c.id].sort());
    expect(await ids({ q: path.basename(project) })).toEqual([c.id]);
    expect(await ids({ q: "alpha", status: "archived" })).toEqual([a.id]);
    expect(await ids({ q: "nothing like it", status: "all" })).toEqual([]);
    const page = await store.list({ q: "e", status: "all", limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 1 });
    expect(page.items).toHaveLength(1);
  });
});

describe("broken files", () => {
  it("a corrupt metadata.json: the others are listed and the broken file is reported by name", async () => {
    const first = await freshStore();
    const good = await first.create({ title: "Good", project_path: project, model_key: "m" });
    const bad = await first.create({ title: "Bad", project_path: project, model_key: "m" });
    const other = await first.create({ title: "Other", project_path: project, model_key: "m" });
    await fs.writeFile(convFile(first, bad.id, "metadata.json"), '{"id": "oops", ');
    await fs.writeFile(
      convFile(first, other.id, "metadata.json"),
      JSON.stringify({ ...other, agent_ids: ["one"] }),
    );
    const indexBefore = await readText(path.join(first.root, "conversations", "index.json"));

    // Broken files are found when the store boots.
    const store = await restart(first);
    const list = await store.list({});
    expect(list.items.map((i) => i.id)).toEqual([good.id]);
    expect(list.total).toBe(1);
    expect(list.problems).toEqual(
      expect.arrayContaining([
        { file: `conversations/${bad.id}/metadata.json`, message: expect.stringContaining("not valid JSON") },
        { file: `conversations/${other.id}/metadata.json`, message: expect.stringContaining("agent_ids.0") },
      ]),
    );
    expect(store.problems()).toEqual(expect.arrayContaining(list.problems));
    // index.json keeps the entries of conversations whose metadata.json broke: nothing to rebuild.
    expect(await readText(path.join(store.root, "conversations", "index.json"))).toBe(indexBefore);
    expect(store.indexReport()).toMatchObject({ conversations: 1, unreadable: 2, rebuilds: [] });
    expect(await catchError(store.get(bad.id))).toBeInstanceOf(CorruptFileError);
    // Updating a broken conversation fails and leaves its bytes alone.
    expect(await catchError(store.update(bad.id, { title: "x" }))).toBeInstanceOf(CorruptFileError);
    expect(await readText(convFile(store, bad.id, "metadata.json"))).toBe('{"id": "oops", ');

    // Repaired by hand, then written by the store: listed again, no longer reported.
    await fs.writeFile(convFile(store, other.id, "metadata.json"), JSON.stringify(other));
    await store.update(other.id, { title: "Other, repaired" });
    expect((await store.list({})).items.map((i) => i.title).sort()).toEqual(["Good", "Other, repaired"]);
    expect(store.problems().map((p) => p.file)).toEqual([`conversations/${bad.id}/metadata.json`]);
    // Deleting the broken one removes its report and its index.json entry.
    await store.remove(bad.id);
    expect(store.problems()).toEqual([]);
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(Object.keys(index).sort()).toEqual([good.id, other.id].sort());
  });

  it("a corrupt index.json is moved aside at boot, rebuilt from the metadata.json files and reported", async () => {
    const store = await freshStore();
    const a = await store.create({ title: "A", project_path: project, model_key: "m" });
    const b = await store.create({ title: "B", project_path: project, model_key: "m" });
    const indexPath = path.join(store.root, "conversations", "index.json");
    const broken = '{"conv_x": {"title": "half';
    await fs.writeFile(indexPath, broken);

    const restarted = await restart(store);
    const names = await fs.readdir(path.join(store.root, "conversations"));
    const aside = names.filter((n) => /^index\.json\.corrupt-\d{14}(-\d+)?$/.test(n));
    expect(aside).toHaveLength(1);
    expect(await readText(path.join(store.root, "conversations", aside[0]!))).toBe(broken);
    const index = await readJsonFile(indexPath, IndexFileSchema);
    expect(Object.keys(index)).toEqual([a.id, b.id]);
    expect(index[a.id]).toEqual({ title: "A", created_at: a.created_at, updated_at: a.updated_at, agent_count: 0 });
    const problem = {
      file: `conversations/${aside[0]}`,
      message: expect.stringMatching(/conversations\/index\.json was unusable \(not valid JSON.*rebuilt at start-up from 2 metadata\.json/),
    };
    expect(restarted.problems()).toEqual([problem]);
    expect((await restarted.list({})).problems).toEqual([problem]);
    expect(restarted.indexReport()).toMatchObject({
      conversations: 2,
      rebuilds: [{ reason: "corrupt", moved_to: `conversations/${aside[0]}`, message: problem.message }],
    });
    expect((await restarted.list({})).items.map((i) => i.id).sort()).toEqual([a.id, b.id].sort());
  });

  it("a corrupt state.json is not overwritten at init, and is moved aside and rebuilt when needed", async () => {
    const store = await freshStore();
    const a = await store.create({ title: "A", project_path: project, model_key: "m" });
    await store.createAgent(a.id, { role_id: "r", role_name: "R" });
    await store.createAgent(a.id, { role_id: "r", role_name: "R" });
    const b = await store.create({ title: "B", project_path: project, model_key: "m" });
    const statePath = path.join(store.root, "state.json");
    const broken = JSON.stringify({ version: "1.0", agent_id_counter: -4 });
    await fs.writeFile(statePath, broken);

    const restarted = newConversationStore(store.root);
    await restarted.init();
    expect(await readText(statePath)).toBe(broken);
    expect(restarted.problems()).toEqual([
      { file: "state.json", message: expect.stringContaining("does not match its schema") },
    ]);
    expect(restarted.problems()[0]?.message).toContain("agent_id_counter");

    // The next agent is counted: state.json is rebuilt from the folders (two agents); b's first agent is 1.
    const agent = await restarted.createAgent(b.id, { role_id: "r", role_name: "R" });
    expect(agent.agent_id).toBe(1);
    const aside = (await fs.readdir(store.root)).filter((n) => n.startsWith("state.json.corrupt-"));
    expect(aside).toHaveLength(1);
    expect(await readText(path.join(store.root, aside[0]!))).toBe(broken);
    const state = await readJsonFile(statePath, StateFileSchema);
    expect(state).toMatchObject({ version: "1.0", agent_id_counter: 2 + AGENT_COUNTER_BLOCK, last_conversation_id: b.id });
    expect(restarted.problems().map((p) => p.file)).toEqual([aside[0]]);
  });

  it("init creates missing files from existing folders but leaves good ones alone", async () => {
    const store = await freshStore();
    const a = await store.create({ title: "A", project_path: project, model_key: "m" });
    await store.createAgent(a.id, { role_id: "r", role_name: "R" });
    const statePath = path.join(store.root, "state.json");
    const stateBefore = await readText(statePath);
    await fs.rm(path.join(store.root, "conversations", "index.json"));

    await newConversationStore(store.root).init();
    expect(await readText(statePath)).toBe(stateBefore);
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(Object.keys(index)).toEqual([a.id]);

    await fs.rm(statePath);
    await newConversationStore(store.root).init();
    expect(await readJsonFile(statePath, StateFileSchema)).toMatchObject({
      last_conversation_id: a.id,
      agent_id_counter: 1,
    });
  });
});

describe("the in-memory index", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const indexPath = (store: ConversationStore) => path.join(store.root, "conversations", "index.json");
  const everything = { status: "all", limit: 100 } as const;

  /** index.json as the seed writes it, from the conversations' metadata.json files on disk. */
  async function seedIndexFromDisk(store: ConversationStore): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const names = (await fs.readdir(path.join(store.root, "conversations"))).filter((n) => CONVERSATION_ID_PATTERN.test(n));
    for (const id of names) {
      const m = await readJson(convFile(store, id, "metadata.json"));
      out[id] = { title: m.title, created_at: m.created_at, updated_at: m.updated_at, agent_count: m.agent_count };
    }
    return out;
  }

  it("after boot, a page or a search reads no conversation file: it works with every metadata.json gone", async () => {
    const first = await freshStore();
    const other = path.join(dir, "index-elsewhere");
    await fs.mkdir(other, { recursive: true });
    for (let i = 0; i < 6; i++) {
      await first.create({ title: `设计 ${i}`, project_path: i % 2 ? other : project, model_key: "m", run_mode: i % 3 ? "fast" : "deep" });
    }
    const store = await restart(first);
    const before = {
      page: await store.list({ limit: 4 }),
      search: await store.list({ q: "index-ELSEWHERE" }),
      title: await store.list({ q: "设计 4" }),
    };
    expect(before.page.total).toBe(6);
    expect(before.search.total).toBe(3);
    expect(before.title.items.map((i) => i.title)).toEqual(["设计 4"]);

    const reads = [vi.spyOn(fs, "readFile"), vi.spyOn(fs, "open"), vi.spyOn(fs, "readdir"), vi.spyOn(fs, "stat")];
    const again = {
      page: await store.list({ limit: 4 }),
      search: await store.list({ q: "index-ELSEWHERE" }),
      title: await store.list({ q: "设计 4" }),
    };
    expect(again).toEqual(before);
    for (const spy of reads) expect(spy).not.toHaveBeenCalled();
    vi.restoreAllMocks();

    for (const item of before.page.items) await fs.rm(convFile(store, item.id, "metadata.json"));
    expect(await store.list({ limit: 4 })).toEqual(before.page);
    expect(await store.list({ q: "index-ELSEWHERE" })).toEqual(before.search);
  });

  it("numbers a data folder's conversations of one second from 001, whatever another store of the process created in that second", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date(2026, 6, 11, 21, 0, 0, 100));
      const first = await freshStore();
      const a = await first.create({ title: "A", project_path: project, model_key: "m" });
      const b = await first.create({ title: "B", project_path: project, model_key: "m" });
      const other = await freshStore();
      const c = await other.create({ title: "C", project_path: project, model_key: "m" });
      expect([a.id, b.id, c.id]).toEqual(["conv_20260711_210000_001", "conv_20260711_210000_002", "conv_20260711_210000_001"]);
      // a second store over the first folder skips the ids taken there
      const again = newConversationStore(first.root);
      await again.init();
      expect((await again.create({ title: "D", project_path: project, model_key: "m" })).id).toBe("conv_20260711_210000_003");
    } finally {
      vi.useRealTimers();
    }
  });

  it("rewrites index.json only when one of its fields changed, and counts every rewrite in the report", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date(2026, 6, 11, 21, 0, 0, 100));
      const store = await freshStore();
      const a = await store.create({ title: "A", project_path: project, model_key: "m" });
      const before = store.indexReport();
      expect(before.writes).toBeGreaterThanOrEqual(1);
      expect(before.last_write).toMatchObject({ bytes: (await fs.stat(indexPath(store))).size, ms: expect.any(Number) });
      const stat = await fs.stat(indexPath(store));

      // Same second: archiving (status is not in index.json) and a message (a touch) leave the file alone.
      await store.update(a.id, { status: "archived" });
      await store.updateLeaderMessages(a.id, (m) => ({ ...m, messages: [...m.messages, { role: "user", content: "hi" }] }));
      expect(store.indexReport()).toMatchObject({ writes: before.writes, unchanged: before.unchanged + 2 });
      expect(await fs.stat(indexPath(store))).toMatchObject({ ino: stat.ino, mtimeMs: stat.mtimeMs });
      expect((await store.list({ status: "archived" })).items.map((i) => i.id)).toEqual([a.id]);

      // The next second, the same touch moves updated_at: one rewrite, and index.json says so.
      vi.setSystemTime(new Date(2026, 6, 11, 21, 0, 1, 100));
      await store.updateLeaderMessages(a.id, (m) => ({ ...m, messages: [...m.messages, { role: "user", content: "again" }] }));
      expect(store.indexReport().writes).toBe(before.writes + 1);
      expect(await readJson(indexPath(store))).toEqual(await seedIndexFromDisk(store));
      expect((await readJson(indexPath(store)))[a.id]).toMatchObject({ updated_at: "2026-07-11T21:00:01" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("a missing index.json is rebuilt at boot and reported; a first start is not a rebuild", async () => {
    const first = await freshStore();
    expect(first.indexReport()).toMatchObject({ conversations: 0, unreadable: 0, rebuilds: [] });
    expect(first.indexReport().loaded_at).toEqual(expect.any(String));
    expect(first.problems()).toEqual([]);
    const a = await first.create({ title: "A", project_path: project, model_key: "m" });
    const b = await first.create({ title: "B", project_path: project, model_key: "m" });
    await fs.rm(indexPath(first));

    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const store = await restart(first);
    expect(await readJsonFile(indexPath(store), IndexFileSchema)).toEqual(await seedIndexFromDisk(store));
    expect(Object.keys(await readJson(indexPath(store)))).toEqual([a.id, b.id]);
    const message = "conversations/index.json was missing; it was rebuilt at start-up from 2 metadata.json file(s).";
    expect(store.indexReport().rebuilds).toEqual([{ at: expect.any(String), reason: "missing", message }]);
    expect(store.problems()).toEqual([{ file: "conversations/index.json", message }]);
    // A notice for the health page, not a broken file for the conversation list's banner.
    expect((await store.list({})).problems).toEqual([]);
    expect(log).toHaveBeenCalledWith(`[astrion] ${message}`);
    expect((await restart(store)).indexReport().rebuilds).toEqual([]);
  });

  it("create, update, archive, agents, messages and delete keep the list and index.json in step with the files", async () => {
    const store = await freshStore();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await store.create({ title: `Step ${i}`, project_path: project, model_key: "m" }));
    const [c0, c1, c2, c3, c4] = made.map((c) => c.id) as [string, string, string, string, string];
    const steps: Array<[string, () => Promise<unknown>]> = [
      ["rename", () => store.update(c1, { title: "Renamed 团队" })],
      ["archive", () => store.update(c2, { status: "archived" })],
      ["phase", () => store.update(c3, { phase: "ENGAGED" })],
      ["agent", () => store.createAgent(c0, { role_id: "r", role_name: "R" })],
      ["message", () => store.updateLeaderMessages(c4, (m) => ({ ...m, messages: [...m.messages, { role: "user", content: "hi" }] }))],
      ["delete", () => store.remove(c2)],
      ["create", () => store.create({ title: "Late", project_path: project, model_key: "m" })],
    ];
    for (const [what, step] of steps) {
      await step();
      // What a restart reads from the metadata.json files is what the running store lists...
      const restarted = await restart(store);
      expect(await store.list(everything), what).toEqual(await restarted.list(everything));
      expect(restarted.indexReport().rebuilds, what).toEqual([]);
      // ...and index.json holds the seed's entries for exactly those files.
      expect(await readJson(indexPath(store)), what).toEqual(await seedIndexFromDisk(store));
    }
    const list = await store.list(everything);
    expect(list.items.find((i) => i.id === c1)?.title).toBe("Renamed 团队");
    expect(list.items.find((i) => i.id === c0)?.agent_count).toBe(1);
    expect(list.items.find((i) => i.id === c3)?.phase).toBe("ENGAGED");
    expect(list.items.map((i) => i.id)).not.toContain(c2);
    expect(list.total).toBe(5);
  });

  it("keeps index.json fields the seed does not name, and the file's entry order", async () => {
    const first = await freshStore();
    const a = await first.create({ title: "A", project_path: project, model_key: "m" });
    const b = await first.create({ title: "B", project_path: project, model_key: "m" });
    const text = toPythonJson({ [b.id]: { ...(await readJson(indexPath(first)))[b.id] as object, pinned: true }, [a.id]: (await readJson(indexPath(first)))[a.id] });
    await fs.writeFile(indexPath(first), text);
    const store = await restart(first);
    expect(store.indexReport().rebuilds).toEqual([]);
    await store.update(b.id, { title: "B2" });
    const index = await readJson(indexPath(store));
    expect(Object.keys(index)).toEqual([b.id, a.id]);
    expect(index[b.id]).toMatchObject({ title: "B2", pinned: true });
  });

  it("a metadata.json edited behind the store's back shows only after a restart, which reports the rebuild", async () => {
    const store = await freshStore();
    const conv = await store.create({ title: "Before", project_path: project, model_key: "m" });
    await fs.writeFile(convFile(store, conv.id, "metadata.json"), toPythonJson({ ...conv, title: "Edited by hand", status: "archived" }));

    expect((await store.list({})).items.map((i) => i.title)).toEqual(["Before"]);
    expect((await store.list({ q: "by hand", status: "all" })).total).toBe(0);

    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const restarted = await restart(store);
    expect((await restarted.list({})).total).toBe(0);
    expect((await restarted.list({ q: "by hand", status: "archived" })).items.map((i) => i.id)).toEqual([conv.id]);
    expect(restarted.indexReport().rebuilds).toEqual([
      {
        at: expect.any(String),
        reason: "out_of_step",
        message: expect.stringContaining("0 conversation(s) missing from it, 0 deleted one(s) still in it, 1 with other titles, times or agent counts"),
      },
    ]);
    expect((await readJson(indexPath(restarted)))[conv.id]).toMatchObject({ title: "Edited by hand" });
  });

  it("index.json changed by another program after boot is rewritten from memory, a broken one moved aside first", async () => {
    const store = await freshStore();
    const a = await store.create({ title: "A", project_path: project, model_key: "m" });
    vi.spyOn(console, "log").mockImplementation(() => undefined);

    const broken = '{"half": ';
    await fs.writeFile(indexPath(store), broken);
    await store.update(a.id, { title: "A2" });
    const aside = (await fs.readdir(path.join(store.root, "conversations"))).filter((n) => n.startsWith("index.json.corrupt-"));
    expect(aside).toHaveLength(1);
    expect(await readText(path.join(store.root, "conversations", aside[0]!))).toBe(broken);
    expect(await readJson(indexPath(store))).toEqual(await seedIndexFromDisk(store));
    expect(store.problems()).toEqual([
      { file: `conversations/${aside[0]}`, message: expect.stringContaining("was changed by another program and is unusable") },
    ]);

    await fs.writeFile(indexPath(store), "{}");
    const b = await store.create({ title: "B", project_path: project, model_key: "m" });
    expect(Object.keys(await readJson(indexPath(store)))).toEqual([a.id, b.id]);
    await fs.rm(indexPath(store));
    await store.remove(a.id);
    expect(Object.keys(await readJson(indexPath(store)))).toEqual([b.id]);
    expect(store.indexReport().rebuilds.map((r) => [r.reason, r.message.slice(0, 51)])).toEqual([
      ["changed_on_disk", "conversations/index.json was changed by another pro"],
      ["changed_on_disk", "conversations/index.json was changed by another pro"],
      ["changed_on_disk", "conversations/index.json was deleted by another pro"],
    ]);
    // Its own writes are not mistaken for someone else's.
    await store.update(b.id, { title: "B2" });
    expect(store.indexReport().rebuilds).toHaveLength(3);
  });

  it("loses no change when many conversations change at once (index.json writes are grouped)", async () => {
    const store = await freshStore();
    const made = await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.create({ title: `Burst ${i}`, project_path: project, model_key: "m" })),
    );
    // Each change, once it returns, is in index.json, even though it was made while other writes were under way.
    const seen = await Promise.all(
      made.map(async (c, i) => {
        await store.update(c.id, { title: `Burst ${i} renamed` });
        return ((await readJson(indexPath(store)))[c.id] as { title?: string } | undefined)?.title;
      }),
    );
    expect(seen).toEqual(made.map((_, i) => `Burst ${i} renamed`));
    await Promise.all(
      made.flatMap((c, i) => [
        store.updateLeaderMessages(c.id, (m) => ({ ...m, messages: [...m.messages, { role: "user", content: `${i}` }] })),
        i % 4 === 0 ? store.remove(c.id) : store.update(c.id, { status: "archived" }),
      ]),
    );
    expect(await readJson(indexPath(store))).toEqual(await seedIndexFromDisk(store));
    const restarted = await restart(store);
    expect(restarted.indexReport().rebuilds).toEqual([]);
    expect(await store.list(everything)).toEqual(await restarted.list(everything));
    expect((await store.list({ status: "archived", limit: 100 })).total).toBe(30);
  });
});

describe("sub-agents", () => {
  it("numbers agents within their conversation and records them in the conversation", async () => {
    const store = await freshStore();
    const a = await store.create({ project_path: project, model_key: "m" });
    const b = await store.create({ project_path: project, model_key: "m", run_mode: "thinking" });
    const a1 = await store.createAgent(a.id, { role_id: "ui-operator", role_name: "UI Operator" });
    const b1 = await store.createAgent(b.id, { role_id: "researcher", role_name: "Researcher" });
    const a2 = await store.createAgent(a.id, { role_id: "researcher", role_name: "Researcher" });
    expect([a1.agent_id, b1.agent_id, a2.agent_id]).toEqual([1, 1, 2]);
    expect(b1.thinking_mode).toBe("thinking");
    expect(await store.get(a.id)).toMatchObject({ agent_ids: [1, 2], agent_count: 2 });
    expect(await store.get(b.id)).toMatchObject({ agent_ids: [1], agent_count: 1 });
    const index = await readJsonFile(path.join(store.root, "conversations", "index.json"), IndexFileSchema);
    expect(index[a.id]?.agent_count).toBe(2);
    expect((await store.listAgents(a.id)).agents.map((x) => x.display_name)).toEqual(["UI Operator_1", "Researcher_2"]);
    expect((await store.listAgents(b.id)).agents.map((x) => x.display_name)).toEqual(["Researcher_1"]);
    expect(await readJson(convFile(store, b.id, "agents", "1", "messages.json"))).toMatchObject({ agent_id: 1, display_name: "Researcher_1" });
  });

  it("gives 20 concurrent createAgent calls distinct ids, all recorded", async () => {
    const store = await freshStore();
    const conv = await store.create({ project_path: project, model_key: "m" });
    const agents = await Promise.all(
      Array.from({ length: 20 }, () => store.createAgent(conv.id, { role_id: "r", role_name: "R" })),
    );
    const ids = agents.map((x) => x.agent_id).sort((x, y) => x - y);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await store.get(conv.id)).toMatchObject({ agent_ids: ids, agent_count: 20 });
  });

  it("reads and updates agent metadata and messages, keeping agent_id", async () => {
    const store = await freshStore();
    const conv = await store.create({ project_path: project, model_key: "m" });
    const agent = await store.createAgent(conv.id, { role_id: "r", role_name: "R", task_summary: "t" });
    const updated = await store.updateAgentMetadata(conv.id, agent.agent_id, (m) => ({
      ...m,
      status: "waiting",
      agent_id: 99,
    }));
    expect(updated).toMatchObject({ agent_id: agent.agent_id, status: "waiting" });
    expect(await store.readAgentMetadata(conv.id, String(agent.agent_id))).toEqual(updated);
    await store.updateAgentMessages(conv.id, agent.agent_id, (m) => ({
      ...m,
      messages: [...m.messages, { role: "assistant", content: "好的" }],
    }));
    expect((await store.readAgentMessages(conv.id, agent.agent_id)).messages).toEqual([
      { role: "assistant", content: "好的" },
    ]);
    expect(
      await catchError(store.updateAgentMetadata(conv.id, agent.agent_id, (m) => ({ ...m, status: "sleeping" as "idle" }))),
    ).toBeInstanceOf(ValidationError);
    expect(await catchError(store.readAgentMetadata(conv.id, 42))).toBeInstanceOf(NotFoundError);
    expect(await catchError(store.readAgentMetadata(conv.id, "../1"))).toBeInstanceOf(ValidationError);
    expect(await catchError(store.createAgent("conv_20200101_000000_001", { role_id: "r", role_name: "R" }))).toBeInstanceOf(
      NotFoundError,
    );
    expect(await catchError(store.createAgent(conv.id, { role_id: "", role_name: "R" }))).toBeInstanceOf(
      ValidationError,
    );
  });

  it("listAgents reports broken and missing agents instead of throwing", async () => {
    const store = await freshStore();
    const conv = await store.create({ project_path: project, model_key: "m" });
    await store.createAgent(conv.id, { role_id: "r", role_name: "R" });
    await store.createAgent(conv.id, { role_id: "r", role_name: "R" });
    await store.createAgent(conv.id, { role_id: "r", role_name: "R" });
    await fs.writeFile(convFile(store, conv.id, "agents", "2", "metadata.json"), "[");
    await fs.rm(convFile(store, conv.id, "agents", "3"), { recursive: true });

    const { agents, problems } = await store.listAgents(conv.id);
    expect(agents.map((a) => a.agent_id)).toEqual([1]);
    expect(problems).toEqual([
      { file: `conversations/${conv.id}/agents/2/metadata.json`, message: expect.stringContaining("not valid JSON") },
      { file: `conversations/${conv.id}/metadata.json`, message: expect.stringContaining("agents/3 is missing") },
    ]);
  });
});

/**
 * The conformance cases of a storage's conversation files (lib/runtime/team/ports.ts
 * `ConversationFiles`): reads, unknown ids, changes in order, `updated_at`, what a change may not
 * touch, refused changes, and sub-agents. Only the port and the harness are used.
 */
import { expect, vi } from "vitest";
import { NotFoundError, ValidationError } from "@/lib/contracts/errors";
import type { Message } from "@/lib/contracts/on-disk";
import { localTimestamp } from "@/lib/store/time";
import { twoConversations, UNKNOWN_CONVERSATION, type StorageCase } from "./storage-contract";

const FILES = "conversation files";
const AGENTS = "sub-agents";

function message(content: string): Message {
  return { role: "user", content, metadata: { message_source: "user", visibility: "chat" } };
}

const contents = (messages: readonly Message[]) => messages.map((m) => m.content);

/** A mutator that appends `content` after `ms` milliseconds (so later calls could overtake it). */
function appendLater<F extends { messages: Message[] }>(content: string, ms: number) {
  return async (file: F): Promise<F> => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { ...file, messages: [...file.messages, message(content)] };
  };
}

/** Runs `fn` with `Date` (only) at `iso`, a local time: `localTimestamp()` then gives it back. */
async function at<T>(iso: string, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    vi.setSystemTime(new Date(iso));
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

export const FILE_CASES: StorageCase[] = [
  {
    group: FILES,
    name: "holds the seeded conversations: their metadata, an empty leader transcript, no agents",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const meta = await files.get(fast);
      expect(meta).toMatchObject({ id: fast, status: "active", run_mode: "fast", agent_ids: [], agent_count: 0 });
      expect((await files.get(thinking)).run_mode).toBe("thinking");
      const leader = await files.readLeaderMessages(fast);
      expect(leader).toMatchObject({ id: fast, title: meta.title, messages: [] });
      expect(await files.listAgents(fast)).toEqual({ agents: [], problems: [] });
    },
  },
  {
    group: FILES,
    name: "rejects an unknown conversation with NotFoundError and a malformed id with ValidationError",
    async run(h) {
      const files = h.storage.conversations;
      const unknown = UNKNOWN_CONVERSATION;
      await expect(files.get(unknown)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.update(unknown, { title: "x" })).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.update(unknown, (m) => m)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.readLeaderMessages(unknown)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.updateLeaderMessages(unknown, (f) => ({ ...f, messages: [message("x")] }))).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.createAgent(unknown, { role_id: "dev", role_name: "Dev" })).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.listAgents(unknown)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.readAgentMetadata(unknown, 1)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.readAgentMessages(unknown, 1)).rejects.toBeInstanceOf(NotFoundError);
      // An append never makes a conversation.
      await expect(files.appendLine(unknown, "timeline.jsonl", "{}")).rejects.toThrow();
      await expect(files.get("not-a-conversation")).rejects.toBeInstanceOf(ValidationError);
    },
  },
  {
    group: FILES,
    name: "a change is seen by the next read, and the leader's title follows the conversation's",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const updated = await files.update(fast, { title: "Renamed", phase: "ENGAGED" });
      expect(updated).toMatchObject({ id: fast, title: "Renamed", phase: "ENGAGED" });
      expect(await files.get(fast)).toMatchObject({ title: "Renamed", phase: "ENGAGED" });
      expect((await files.readLeaderMessages(fast)).title).toBe("Renamed");
      await files.update(fast, (m) => ({ ...m, status: "archived" }));
      expect((await files.get(fast)).status).toBe("archived");
      await files.updateLeaderMessages(fast, (f) => ({ ...f, messages: [...f.messages, message("hello")] }));
      expect(contents((await files.readLeaderMessages(fast)).messages)).toEqual(["hello"]);
      // The other conversation is untouched.
      expect(await files.get(thinking)).toMatchObject({ title: "Thinking", status: "active" });
      expect((await files.readLeaderMessages(thinking)).messages).toEqual([]);
    },
  },
  {
    group: FILES,
    name: "refuses a bad patch, a changed id and an invalid file with ValidationError, and changes nothing",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const before = await files.get(fast);
      await expect(files.update(fast, { title: "" })).rejects.toBeInstanceOf(ValidationError);
      await expect(files.update(fast, { status: "gone" } as never)).rejects.toBeInstanceOf(ValidationError);
      await expect(files.update(fast, (m) => ({ ...m, id: thinking }))).rejects.toBeInstanceOf(ValidationError);
      await expect(files.update(fast, (m) => ({ ...m, status: "gone" }) as never)).rejects.toBeInstanceOf(ValidationError);
      await expect(files.updateLeaderMessages(fast, (f) => ({ ...f, messages: [{ role: "robot", content: "x" } as never] }))).rejects.toBeInstanceOf(ValidationError);
      expect(await files.get(fast)).toEqual(before);
      expect((await files.readLeaderMessages(fast)).messages).toEqual([]);
      const agent = await files.createAgent(fast, { role_id: "dev", role_name: "Dev" });
      await expect(files.updateAgentMetadata(fast, agent.agent_id, (m) => ({ ...m, status: "flying" }) as never)).rejects.toBeInstanceOf(ValidationError);
      expect((await files.readAgentMetadata(fast, agent.agent_id)).status).toBe("running");
      // A refused change does not hold up the next one.
      await files.updateAgentMetadata(fast, agent.agent_id, (m) => ({ ...m, status: "idle" }));
      expect((await files.readAgentMetadata(fast, agent.agent_id)).status).toBe("idle");
    },
  },
  {
    group: FILES,
    name: "a mutator that fails changes nothing, and the file takes the next change",
    async run(h) {
      const files = h.storage.conversations;
      const [fast] = twoConversations(h);
      const boom = new Error("the mutator failed");
      await expect(files.updateLeaderMessages(fast, async () => Promise.reject(boom))).rejects.toBe(boom);
      await expect(files.update(fast, () => Promise.reject(boom))).rejects.toBe(boom);
      expect((await files.readLeaderMessages(fast)).messages).toEqual([]);
      await files.updateLeaderMessages(fast, (f) => ({ ...f, messages: [message("after")] }));
      expect(contents((await files.readLeaderMessages(fast)).messages)).toEqual(["after"]);
    },
  },
  {
    group: FILES,
    name: "changes of one file are applied one at a time, in the order asked, none lost",
    async run(h) {
      const files = h.storage.conversations;
      const [fast] = twoConversations(h);
      const agent = await files.createAgent(fast, { role_id: "dev", role_name: "Dev" });
      const n = 8;
      const asked = Array.from({ length: n }, (_, i) => String(i));
      // Each mutator waits less than the one before it: an implementation that does not queue
      // them lets the later ones overtake (and lose the earlier ones' messages).
      await Promise.all([
        ...asked.map((c, i) => files.updateLeaderMessages(fast, appendLater(c, 2 * (n - i)))),
        ...asked.map((c, i) => files.updateAgentMessages(fast, agent.agent_id, appendLater(c, 2 * (n - i)))),
        ...asked.map((c, i) =>
          files.update(fast, async (m) => {
            await new Promise((resolve) => setTimeout(resolve, 2 * (n - i)));
            return { ...m, order: [...((m.order as string[] | undefined) ?? []), c] };
          }),
        ),
        ...asked.map((c, i) =>
          files.updateAgentMetadata(fast, agent.agent_id, async (m) => {
            await new Promise((resolve) => setTimeout(resolve, 2 * (n - i)));
            return { ...m, task_summary: `${m.task_summary ?? ""}${c}` };
          }),
        ),
      ]);
      expect(contents((await files.readLeaderMessages(fast)).messages)).toEqual(asked);
      expect(contents((await files.readAgentMessages(fast, agent.agent_id)).messages)).toEqual(asked);
      expect((await files.get(fast)).order).toEqual(asked);
      expect((await files.readAgentMetadata(fast, agent.agent_id)).task_summary).toBe(asked.join(""));
    },
  },
  {
    group: FILES,
    name: "updated_at becomes now on every change; the leader's touch moves the metadata's, `touch: false` does not",
    async run(h) {
      const files = h.storage.conversations;
      const [fast] = twoConversations(h);
      const t1 = await at("2031-02-03T04:05:06", async () => {
        await files.update(fast, { phase: "ENGAGED" });
        return localTimestamp();
      });
      expect((await files.get(fast)).updated_at).toBe(t1);
      const t2 = await at("2031-02-03T04:05:16", async () => {
        const leader = await files.updateLeaderMessages(fast, (f) => ({ ...f, messages: [message("a")] }));
        expect(leader.updated_at).toBe(localTimestamp());
        return localTimestamp();
      });
      expect((await files.get(fast)).updated_at).toBe(t2);
      const t3 = await at("2031-02-03T04:05:26", async () => {
        await files.updateLeaderMessages(fast, (f) => ({ ...f, messages: [...f.messages, message("b")] }), { touch: false });
        return localTimestamp();
      });
      expect((await files.readLeaderMessages(fast)).updated_at).toBe(t3);
      expect((await files.get(fast)).updated_at).toBe(t2);
      const agent = await files.createAgent(fast, { role_id: "dev", role_name: "Dev" });
      const t4 = await at("2031-02-03T04:05:36", async () => {
        await files.updateAgentMetadata(fast, agent.agent_id, (m) => ({ ...m, status: "waiting" }));
        await files.updateAgentMessages(fast, agent.agent_id, (f) => ({ ...f, messages: [message("c")] }));
        return localTimestamp();
      });
      expect((await files.readAgentMetadata(fast, agent.agent_id)).updated_at).toBe(t4);
      expect((await files.readAgentMessages(fast, agent.agent_id)).updated_at).toBe(t4);
    },
  },
  {
    group: FILES,
    name: "a change cannot move a file's ids: the leader keeps the conversation's id and title, an agent its agent_id",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const title = (await files.get(fast)).title;
      const leader = await files.updateLeaderMessages(fast, (f) => ({ ...f, id: thinking, title: "Other", messages: [message("x")] }));
      expect(leader).toMatchObject({ id: fast, title });
      expect(await files.readLeaderMessages(fast)).toMatchObject({ id: fast, title });
      const agent = await files.createAgent(fast, { role_id: "dev", role_name: "Dev" });
      await files.updateAgentMetadata(fast, agent.agent_id, (m) => ({ ...m, agent_id: agent.agent_id + 100 }));
      await files.updateAgentMessages(fast, agent.agent_id, (f) => ({ ...f, agent_id: agent.agent_id + 100, messages: [message("y")] }));
      expect((await files.readAgentMetadata(fast, agent.agent_id)).agent_id).toBe(agent.agent_id);
      expect(await files.readAgentMessages(fast, agent.agent_id)).toMatchObject({ agent_id: agent.agent_id, messages: [{ content: "y" }] });
      await expect(files.readAgentMetadata(fast, agent.agent_id + 100)).rejects.toBeInstanceOf(NotFoundError);
    },
  },
  {
    group: AGENTS,
    name: "rejects an unknown agent with NotFoundError",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const agent = await files.createAgent(thinking, { role_id: "dev", role_name: "Dev" });
      // The agent is the other conversation's.
      await expect(files.readAgentMetadata(fast, agent.agent_id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.readAgentMessages(fast, agent.agent_id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.updateAgentMetadata(fast, agent.agent_id, (m) => ({ ...m, status: "idle" }))).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.updateAgentMessages(fast, agent.agent_id, (f) => ({ ...f, messages: [message("x")] }))).rejects.toBeInstanceOf(NotFoundError);
      await expect(files.readAgentMetadata(fast, 999)).rejects.toBeInstanceOf(NotFoundError);
    },
  },
  {
    group: AGENTS,
    name: "takes ids 1, 2, 3… within each conversation, with the defaults, listed on the conversation",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const conv = await files.get(fast);
      const first = await files.createAgent(fast, { role_id: "ui", role_name: "UI Operator" });
      expect(first).toMatchObject({
        agent_id: 1,
        role_id: "ui",
        display_name: "UI Operator_1",
        status: "running",
        model_key: conv.model_key,
        thinking_mode: "fast",
        pending_messages: [],
        pending_tool_calls: [],
      });
      // Another conversation's first agent is 1 as well.
      const other = await files.createAgent(thinking, { role_id: "dev", role_name: "Dev", model_key: "model-x", task_summary: "build it" });
      expect(other).toMatchObject({ agent_id: 1, display_name: "Dev_1", model_key: "model-x", thinking_mode: "thinking", task_summary: "build it" });
      const second = await files.createAgent(fast, { role_id: "dev", role_name: "Dev", thinking_mode: "deep" });
      expect(second).toMatchObject({ agent_id: 2, display_name: "Dev_2", thinking_mode: "deep" });
      expect(await files.get(fast)).toMatchObject({ agent_ids: [1, 2], agent_count: 2 });
      expect(await files.get(thinking)).toMatchObject({ agent_ids: [1], agent_count: 1 });
      expect(await files.readAgentMetadata(fast, 1)).toEqual(first);
      expect(await files.readAgentMetadata(thinking, 1)).toEqual(other);
      expect(await files.readAgentMessages(fast, 1)).toMatchObject({ agent_id: 1, role_id: "ui", display_name: "UI Operator_1", messages: [] });
      const listed = await files.listAgents(fast);
      expect(listed.agents.map((a) => a.agent_id)).toEqual([1, 2]);
      expect(listed.problems).toEqual([]);
      await files.updateAgentMetadata(fast, 2, (m) => ({ ...m, status: "completed" }));
      expect((await files.listAgents(fast)).agents.map((a) => a.status)).toEqual(["running", "completed"]);
      expect((await files.readAgentMetadata(thinking, 1)).status).toBe("running");
    },
  },
  {
    group: AGENTS,
    name: "refuses a blank role with ValidationError and creates nothing",
    async run(h) {
      const files = h.storage.conversations;
      const [fast] = twoConversations(h);
      await expect(files.createAgent(fast, { role_id: " ", role_name: "Dev" })).rejects.toBeInstanceOf(ValidationError);
      await expect(files.createAgent(fast, { role_id: "dev", role_name: "" })).rejects.toBeInstanceOf(ValidationError);
      expect(await files.get(fast)).toMatchObject({ agent_ids: [], agent_count: 0 });
      expect((await files.listAgents(fast)).agents).toEqual([]);
    },
  },
  {
    group: AGENTS,
    name: "agents created at once get distinct ids within their conversation, each listed on its conversation",
    async run(h) {
      const files = h.storage.conversations;
      const [fast, thinking] = twoConversations(h);
      const made = await Promise.all(Array.from({ length: 6 }, (_, i) => files.createAgent(i % 2 ? thinking : fast, { role_id: "dev", role_name: "Dev" })));
      const fastIds = made.filter((_, i) => i % 2 === 0).map((a) => a.agent_id).sort((a, b) => a - b);
      const thinkingIds = made.filter((_, i) => i % 2 === 1).map((a) => a.agent_id).sort((a, b) => a - b);
      expect(fastIds).toEqual([1, 2, 3]);
      expect(thinkingIds).toEqual([1, 2, 3]);
      expect(await files.get(fast)).toMatchObject({ agent_ids: fastIds, agent_count: 3 });
      expect(await files.get(thinking)).toMatchObject({ agent_ids: thinkingIds, agent_count: 3 });
      expect((await files.listAgents(fast)).agents.map((a) => a.agent_id)).toEqual(fastIds);
    },
  },
];

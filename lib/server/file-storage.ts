import "server-only";
/**
 * The engine's ports over the file store of a data folder (lib/runtime/team/ports.ts says what
 * each member must guarantee; test/conformance checks it): the seed's files with every change
 * made eagerly, the timeline, context reports and journal beside each conversation's files,
 * appended through the store (so an open conversation's step log makes them durable with its
 * other changes of the tick), each conversation's shared_context.json (written durably, after the
 * changes made before it are durable, so it is never durable ahead of them), and the
 * conversations' lifecycle (open, let go, found at boot).
 * Part of the composition root: the only place that knows the engine's storage is files.
 */
import path from "node:path";
import { TIMELINE_FILE_NAME, timelineLine } from "@/lib/protocol";
import { CONTEXT_FILE_NAME, type ConversationFiles, type ConversationLifecycle, type EngineStorage } from "@/lib/runtime/team/ports";
import { ActionJournal, JOURNAL_FILE_NAME } from "@/lib/store/action-journal";
import { ChangeQueues } from "@/lib/store/change-queues";
import type { ConversationStore, FileQueues } from "@/lib/store";
import { readSharedContext, sharedContextFileChange } from "@/lib/shared-context";

const EAGER = { eager: true } as const;

/**
 * The store's conversation files with every change made eagerly (see ConversationFiles), and
 * the shared context's file beside them in `dirOf(id)`.
 */
function eagerFiles(store: ConversationStore, queues: FileQueues, dirOf: (id: string) => string): ConversationFiles {
  // One conversation's shared-context changes, in the order they were asked for (each waits for
  // the durability of what came before it, then for the file's lock).
  const shared = new ChangeQueues();
  return {
    get: (id) => store.get(id, EAGER),
    update: (id, patch) => store.update(id, patch, EAGER),
    readLeaderMessages: (id) => store.readLeaderMessages(id, EAGER),
    updateLeaderMessages: (id, fn, opts) => store.updateLeaderMessages(id, fn, { ...opts, ...EAGER }),
    createAgent: (convId, input) => store.createAgent(convId, input, EAGER),
    readAgentMetadata: (convId, agentId) => store.readAgentMetadata(convId, agentId, EAGER),
    updateAgentMetadata: (convId, agentId, fn) => store.updateAgentMetadata(convId, agentId, fn, EAGER),
    readAgentMessages: (convId, agentId) => store.readAgentMessages(convId, agentId, EAGER),
    updateAgentMessages: (convId, agentId, fn) => store.updateAgentMessages(convId, agentId, fn, EAGER),
    listAgents: (convId) => store.listAgents(convId, EAGER),
    appendLine: (id, name, line) => store.appendLine(id, name, line, EAGER),
    readSharedContext: async (id) => {
      await store.get(id, EAGER);
      return readSharedContext(dirOf(id));
    },
    updateSharedContext: async (id, fn) =>
      shared.serial(id, async () => {
        await store.get(id, EAGER);
        // The file is durable once written: the conversation's earlier changes are made durable first.
        await store.durability(id)?.whenDurable();
        return sharedContextFileChange(queues, dirOf(id))(fn);
      }),
  };
}

/** The engine's storage over the file store of `root`; `queues` are the process's per-file write queues (the shared context's file is written through them). */
export function fileStorage(root: string, store: ConversationStore, queues: FileQueues): EngineStorage {
  const dirOf = (convId: string) => path.join(root, "conversations", convId);
  return {
    conversations: eagerFiles(store, queues, dirOf),
    appendTimeline: (convId, record) => store.appendLine(convId, TIMELINE_FILE_NAME, timelineLine(record), EAGER),
    appendContextReport: (convId, line) => store.appendLine(convId, CONTEXT_FILE_NAME, line, EAGER),
    // `started` is durable before it resolves: a side effect runs only once it is on disk. `done` is
    // ordered after it (lib/store/action-journal.ts says why it need not wait for the disk).
    journal: (convId) =>
      new ActionJournal(
        dirOf(convId),
        (line) => store.appendLine(convId, JOURNAL_FILE_NAME, line),
        (line) => store.appendLine(convId, JOURNAL_FILE_NAME, line, EAGER),
      ),
    durability: (convId) => store.durability(convId),
    letGo: async (convId) => {
      if (!store.isOpen(convId)) await store.closeLineFiles(convId).catch(() => undefined);
    },
  };
}

/** How the engine opens and lets go of the file store's conversations. */
export function fileLifecycle(store: ConversationStore): ConversationLifecycle {
  return {
    open: async (convId) => {
      await store.get(convId);
      // Held in memory while a run uses it (lib/store/live-conversation.ts); its step log replayed.
      await store.open(convId, (report) => {
        if (report.replayed || report.repairedBytes) {
          console.log(`[astrion] ${convId}: replayed ${report.replayed} step(s) of its log${report.repairedBytes ? `, cut ${report.repairedBytes} torn byte(s)` : ""}`);
        }
      });
    },
    close: async (convId) => {
      await store.closeConversation(convId);
      await store.closeLineFiles(convId);
    },
    closeAll: () => store.closeAll(),
    listActive: async ({ offset, limit }) => {
      const page = await store.list({ status: "active", offset, limit });
      return { ids: page.items.map((item) => item.id), total: page.total };
    },
  };
}

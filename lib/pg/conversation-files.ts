import "server-only";
/**
 * The engine's `ConversationFiles` port over the PostgreSQL store (lib/runtime/team/ports.ts says
 * what each member guarantees; test/conformance checks it): the same checks and rules as the file
 * store's open conversations (lib/store/live-conversation.ts), on the files an
 * {@link OpenConversation} holds in memory. A read of an open conversation is answered from
 * memory, of another from its rows; a change opens the conversation for writing when it is not
 * (the storage takes its lease), is applied in memory in its file's queue and resolves at once,
 * ordered for the next grouped commit.
 */
import { ValidationError, zodIssues } from "@/lib/contracts/errors";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationMetadataSchema,
  LeaderMessagesFileSchema,
  type ConversationMetadata,
  type Message,
} from "@/lib/contracts/on-disk";
import type { ConversationFiles } from "@/lib/runtime/team/ports";
import { ConversationPatchSchema, localTimestamp, parseConversationId, type LoggedLineFile, type Mutator } from "@/lib/store";
import { checked, checkedChange, checkedMessagesChange, rebased } from "@/lib/store/step-records";
import { checkedAgentRole, newAgentFiles } from "@/lib/store/agent-files";
import { SharedContextFileSchema } from "@/lib/shared-context/schema";
import { changedIndices, type OpenConversation } from "./open-conversation";
import { readAgent, readAgentList, readLeader, readMeta, readSharedContextRows, type Db } from "./rows";

/** What the files need of the storage. */
export interface FilesHost {
  readonly db: Db;
  /** The conversation open in memory, or null: a read then goes to its rows. */
  opened(id: string): Promise<OpenConversation | null>;
  /**
   * Runs `change` on the conversation opened for writing (opened, its lease taken, when it is
   * not). `change` must ask for its change before it awaits anything, so a close under way
   * either waits for it or is over before it (then the conversation is opened again).
   */
  write<T>(id: string, change: (conv: OpenConversation) => Promise<T> | T): Promise<T>;
}

const LINE_FILES: ReadonlySet<string> = new Set<LoggedLineFile>(["timeline.jsonl", "context.jsonl", "actions.jsonl"]);

/** A messages file's new messages (at `changed`), checked with its head against the file's schema. */
function checkedMessages<T extends { messages: Message[] }>(schema: Parameters<typeof checkedMessagesChange>[0], prev: T, next: T, what: string): number[] {
  if (!Array.isArray(next.messages)) throw new ValidationError(`Refusing to save ${what}`, [{ path: "messages", message: "must be a list" }]);
  const changed = changedIndices(prev.messages, next.messages);
  checkedMessagesChange(schema, prev, next, changed.map((i) => next.messages[i]!), what);
  return changed;
}

/** Changes metadata.json in its queue (`id` fixed, `updated_at` now); the leader's title follows. */
function updateMeta(conv: OpenConversation, fn: Mutator<ConversationMetadata>): Promise<ConversationMetadata> {
  return conv.serial("meta", async () => {
    const base = conv.meta;
    const changed = await fn(base);
    if (changed === base) return base;
    // A leader's change may have set metadata.json's fields while the mutator ran: they are kept.
    const next = checkedChange(ConversationMetadataSchema, conv.meta, { ...rebased(base, changed, conv.meta), id: conv.id, updated_at: localTimestamp() }, "metadata.json");
    conv.setMeta(next);
    return next;
  });
}

/** Appends a line to one of a conversation's JSON Lines files; resolves with the change's mark. */
export function appendLine(host: FilesHost, convId: string, name: LoggedLineFile, line: string): Promise<number> {
  if (!LINE_FILES.has(name)) return Promise.reject(new ValidationError("Unknown line file", [{ path: "name", message: `not one of ${[...LINE_FILES].join(", ")}` }]));
  // PostgreSQL's text cannot hold NUL; a JSON line (JSON.stringify) never has one.
  if (typeof line !== "string" || line.includes("\u0000")) return Promise.reject(new ValidationError("Invalid line", [{ path: "line", message: "must be text without NUL characters" }]));
  return host.write(convId, (conv) => conv.appendLine(name, line));
}

/** The conversation files of the PostgreSQL store. */
export function pgConversationFiles(host: FilesHost): ConversationFiles {
  const read = async <T>(id: string, fromMemory: (conv: OpenConversation) => T, fromRows: () => Promise<T>): Promise<T> => {
    parseConversationId(id);
    const conv = await host.opened(id);
    return conv ? fromMemory(conv) : fromRows();
  };

  return {
    get: (id) => read(id, (conv) => conv.meta, () => readMeta(host.db, id)),
    update: async (id, patch) => {
      parseConversationId(id);
      let apply: Mutator<ConversationMetadata>;
      if (typeof patch === "function") apply = patch;
      else {
        const parsed = ConversationPatchSchema.safeParse(patch);
        if (!parsed.success) throw new ValidationError("Invalid conversation change", zodIssues(parsed.error));
        const changes = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
        apply = (current) => ({ ...current, ...changes });
      }
      return host.write(id, (conv) =>
        // The mutator gets a copy (it may not change the value it is given, but a patch's caller may hold on to it).
        updateMeta(conv, async (current) => {
          const changed = await apply(structuredClone(current));
          if (changed.id !== id) throw new ValidationError("A conversation's id cannot change", [{ path: "id", message: "cannot change" }]);
          return changed;
        }),
      );
    },
    readLeaderMessages: (id) => read(id, (conv) => conv.leader, () => readLeader(host.db, id)),
    updateLeaderMessages: async (id, fn, opts = {}) => {
      parseConversationId(id);
      return host.write(id, (conv) =>
        conv.serial("leader", async () => {
          const prev = conv.leader;
          const changed = await fn(prev);
          if (changed === prev) return prev;
          const now = localTimestamp();
          const next = { ...changed, id: conv.id, title: conv.meta.title, updated_at: now };
          const indices = checkedMessages(LeaderMessagesFileSchema, prev, next, "messages.json");
          const touch = opts.touch !== false;
          const fields = opts.metadata?.(next);
          // Checked before anything is applied, so a refused field leaves both files as they were.
          const meta = touch || fields ? checkedChange(ConversationMetadataSchema, conv.meta, { ...conv.meta, ...fields, id: conv.id, updated_at: touch ? now : conv.meta.updated_at }, "metadata.json") : conv.meta;
          conv.setLeader(next, indices, meta);
          return next;
        }),
      );
    },
    createAgent: async (convId, input) => {
      const role = checkedAgentRole(input);
      parseConversationId(convId);
      return host.write(convId, async (conv) => {
        // Chosen and taken in this tick: a create asked for at the same time takes the next id.
        const agentId = conv.nextAgentId();
        const { meta, messages } = newAgentFiles(role, input, conv.meta, agentId);
        checked(AgentMetadataSchema, meta, `agent ${agentId}'s metadata.json`);
        checked(AgentMessagesFileSchema, messages, `agent ${agentId}'s messages.json`);
        conv.addAgent({ meta, messages });
        await updateMeta(conv, (m) => {
          const ids = [...new Set([...m.agent_ids, agentId])].sort((a, b) => a - b);
          return { ...m, agent_ids: ids, agent_count: ids.length };
        });
        return meta;
      });
    },
    readAgentMetadata: (convId, agentId) => read(convId, (conv) => conv.agent(agentId).meta, async () => (await readAgent(host.db, convId, agentId)).meta),
    updateAgentMetadata: async (convId, agentId, fn) => {
      parseConversationId(convId);
      return host.write(convId, (conv) => {
        const files = conv.agent(agentId);
        return conv.serial(`agent:${agentId}`, async () => {
          const changed = await fn(files.meta);
          if (changed === files.meta) return changed;
          const next = checkedChange(AgentMetadataSchema, files.meta, { ...changed, agent_id: agentId, updated_at: localTimestamp() }, `agent ${agentId}'s metadata.json`);
          conv.setAgentMeta(agentId, next);
          return next;
        });
      });
    },
    readAgentMessages: (convId, agentId) => read(convId, (conv) => conv.agent(agentId).messages, async () => (await readAgent(host.db, convId, agentId)).messages),
    updateAgentMessages: async (convId, agentId, fn) => {
      parseConversationId(convId);
      return host.write(convId, (conv) => {
        const files = conv.agent(agentId);
        return conv.serial(`agent_messages:${agentId}`, async () => {
          const prev = files.messages;
          const changed = await fn(prev);
          if (changed === prev) return changed;
          const next = { ...changed, agent_id: agentId, updated_at: localTimestamp() };
          const indices = checkedMessages(AgentMessagesFileSchema, prev, next, `agent ${agentId}'s messages.json`);
          conv.setAgentMessages(agentId, next, indices);
          return next;
        });
      });
    },
    listAgents: (convId) =>
      read(
        convId,
        (conv) => ({ agents: conv.agentIds().map((agentId) => conv.agent(agentId).meta), problems: [] }),
        async () => ({ agents: await readAgentList(host.db, convId), problems: [] }),
      ),
    appendLine: async (convId, name, line) => void (await appendLine(host, convId, name, line)),
    readSharedContext: (convId) => read(convId, (conv) => conv.sharedContext, () => readSharedContextRows(host.db, convId)),
    updateSharedContext: async (convId, fn) => {
      parseConversationId(convId);
      return host.write(convId, (conv) =>
        conv.serial("shared_context", async () => {
          const prev = conv.sharedContext;
          const next = await fn(prev);
          if (next === prev) return prev;
          // Stored as the mutator made it (zod's copy would reorder its keys), once it fits the schema.
          checked(SharedContextFileSchema, next, "shared_context.json");
          conv.setSharedContext(next);
          return next;
        }),
      );
    },
  };
}

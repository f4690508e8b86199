/**
 * A conversation's sub-agents: `agents/<agent_id>/metadata.json` and `messages.json`. Part of the
 * conversation store (lib/store/conversation-store.ts is its public face): from memory and through
 * the step log when the conversation is open, from and to the files otherwise.
 */
import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import type { StoreProblem } from "@/lib/contracts/http";
import { AstrionError, CorruptFileError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import { fsyncDir } from "./atomic";
import { getConversation, updateConversation } from "./conversation-files";
import { readJsonFile, updateJsonFile, writeJsonNewDurable } from "./files";
import { messagesDelta, type ChangeOptions } from "./live-conversation";
import { AGENT_ID_TEXT, agentDir, agentMessagesFile, agentMetadataFile, agentsDir, conversationMetadataFile, parseAgentId } from "./paths";
import { AgentMessagesFileSchema, AgentMetadataSchema, type AgentMessagesFile, type AgentMetadata, type ConversationMetadata } from "@/lib/contracts/on-disk";
import { errnoCode, type Mutator, type StoreCore } from "./store-core";
import { mapLimit } from "./map-limit";
import { SCAN_CONCURRENCY } from "./store-scan";
import { localTimestamp } from "./time";

/** Input of `ConversationStore.createAgent`. */
export interface CreateAgentInput {
  role_id: string;
  /** The role's display name; the agent is shown as `<role_name>_<agent_id>` (seed: `UI Operator_1`). */
  role_name: string;
  /** Default: the conversation's model key. */
  model_key?: string;
  /** Default: `fast` when the conversation runs fast, else `thinking`. */
  thinking_mode?: string;
  task_summary?: string;
}

/** What `ConversationStore.listAgents` returns: the readable agents and what was not. */
export interface AgentList {
  agents: AgentMetadata[];
  problems: StoreProblem[];
}

function agentNotFound(convId: string, agentId: unknown): NotFoundError {
  return new NotFoundError(`Agent ${String(agentId)} of conversation ${convId} does not exist`, { id: convId, agent_id: agentId });
}

/** Runs `fn`; a missing file becomes "no such agent". */
async function ofAgent<T>(convId: string, agentId: unknown, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof NotFoundError) throw agentNotFound(convId, agentId);
    throw error;
  }
}

/** The id after every id a conversation has: the first agent of a conversation is 1. */
function nextAgentId(taken: Iterable<number>): number {
  let max = 0;
  for (const id of taken) if (id > max) max = id;
  return max + 1;
}

/** The numeric names of a conversation's `agents/` folder (`.creating-*` and the like are not agents). */
async function agentFolderIds(convId: string, dir: string): Promise<number[]> {
  try {
    return (await fs.readdir(dir)).filter((n) => AGENT_ID_TEXT.test(n)).map(Number);
  } catch (error) {
    if (errnoCode(error) === "ENOENT") throw new NotFoundError(`Conversation ${convId} does not exist`, { id: convId });
    throw error;
  }
}

/** A new agent's role, trimmed: a blank `role_id` or `role_name` rejects with `ValidationError` (every storage's `createAgent` checks it so). */
export function checkedAgentRole(input: CreateAgentInput): { roleId: string; roleName: string } {
  const roleId = typeof input.role_id === "string" ? input.role_id.trim() : "";
  const roleName = typeof input.role_name === "string" ? input.role_name.trim() : "";
  if (!roleId) throw new ValidationError("Invalid role", [{ path: "role_id", message: "a role id is required" }]);
  if (!roleName) throw new ValidationError("Invalid role", [{ path: "role_name", message: "a role name is required" }]);
  return { roleId, roleName };
}

/**
 * A new sub-agent's two files, as every storage makes them (the port's `createAgent`): status
 * running, `display_name` `<role_name>_<agent_id>`, the conversation's model unless given, `fast`
 * thinking for a conversation that runs fast and `thinking` otherwise unless given, nothing
 * pending, no messages.
 */
export function newAgentFiles(
  role: { roleId: string; roleName: string },
  input: CreateAgentInput,
  conv: Pick<ConversationMetadata, "model_key" | "run_mode">,
  agentId: number,
): { meta: AgentMetadata; messages: AgentMessagesFile } {
  const now = localTimestamp();
  const displayName = `${role.roleName}_${agentId}`;
  const meta: AgentMetadata = {
    agent_id: agentId,
    role_id: role.roleId,
    display_name: displayName,
    status: "running",
    created_at: now,
    updated_at: now,
    task_summary: input.task_summary ?? "",
    model_key: input.model_key ?? conv.model_key,
    thinking_mode: input.thinking_mode ?? (conv.run_mode === "fast" ? "fast" : "thinking"),
    pending_messages: [],
    pending_tool_calls: [],
  };
  const messages: AgentMessagesFile = { agent_id: agentId, role_id: role.roleId, display_name: displayName, created_at: now, updated_at: now, messages: [] };
  return { meta, messages };
}

/**
 * Creates a sub-agent in a conversation. Agents are numbered within their conversation: the new
 * agent's id is one past every id the conversation has (listed in `agent_ids`, held in memory or
 * named by a folder under `agents/`), so the first agent of every conversation is 1 and a
 * conversation whose agents are 33 and 34 (numbered globally before) goes on with 35; no folder
 * is ever renumbered. The agent is counted in state.json's `agent_id_counter`, the data folder's
 * count of instances (./agent-counter.ts). Writes `agents/<agent_id>/metadata.json` and
 * `messages.json`, and adds the id to the conversation's `agent_ids` / `agent_count` (and the
 * index's `agent_count`). An open conversation takes both files and its new `agent_ids` as changes
 * of its step log (made together, durable together; the folder is written from memory); a closed
 * one gets the folder written durably beside its place and renamed into it. Resolves once durable
 * (see {@link ChangeOptions}).
 */
export async function createAgent(core: StoreCore, convId: string, input: CreateAgentInput, opts: ChangeOptions = {}): Promise<AgentMetadata> {
  const role = checkedAgentRole(input);
  const conv = await getConversation(core, convId);
  const files = (agentId: number) => newAgentFiles(role, input, conv, agentId);
  const addId = (agentId: number) => (m: ConversationMetadata) => {
    const ids = [...new Set([...m.agent_ids, agentId])].sort((a, b) => a - b);
    return { ...m, agent_ids: ids, agent_count: ids.length };
  };
  await core.agentCounter.count();
  const live = core.live.get(convId);
  if (live) {
    // Chosen and taken in this tick: a concurrent create sees this agent in memory.
    let agentId = nextAgentId([...live.agentIds(), ...conv.agent_ids]);
    // A folder no agent of the log holds (left by a create cut short before the conversation was opened): not taken again.
    while (existsSync(agentDir(core.root, convId, agentId))) agentId++;
    const { meta, messages } = files(agentId);
    // Both changes are made in this tick, so one group commit of the log makes them durable.
    // Observers hear of the agent once it is durable (the conversation's `onAgent` hook).
    const created = live.createAgent(meta, messages, opts);
    const listed = updateConversation(core, convId, addId(agentId), opts);
    await Promise.all([created, listed]);
    return meta;
  }

  const parent = agentsDir(core.root, convId);
  try {
    await fs.mkdir(parent);
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT") throw new NotFoundError(`Conversation ${convId} does not exist`, { id: convId });
    if (code !== "EEXIST") throw error;
  }
  let agentId = nextAgentId([...conv.agent_ids, ...(await agentFolderIds(convId, parent))]);
  for (;; agentId++) {
    try {
      // Making the folder claims the id: a concurrent create of this conversation takes the next one.
      await fs.mkdir(agentDir(core.root, convId, agentId));
      break;
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw error;
    }
  }
  const { meta, messages } = files(agentId);
  await core.changing(convId, async () => {
    // Both files appear at once: they are written into a folder of their own, which is then
    // renamed over the (empty) folder that claimed the id. A crash leaves an empty folder or
    // a whole agent, never an agent with one file.
    const final = agentDir(core.root, convId, agentId);
    const staging = path.join(agentsDir(core.root, convId), `.creating-${agentId}-${randomBytes(4).toString("hex")}`);
    await fs.mkdir(staging);
    try {
      // Durable before the folder is renamed into place; written together (nobody sees the
      // staging folder), and the folder is synced once for both names.
      await Promise.all([writeJsonNewDurable(path.join(staging, "metadata.json"), meta, AgentMetadataSchema), writeJsonNewDurable(path.join(staging, "messages.json"), messages, AgentMessagesFileSchema)]);
      await fsyncDir(staging);
      await fs.rename(staging, final);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
    await fsyncDir(agentsDir(core.root, convId));
  });
  core.notify({ type: "agent", convId, meta });
  await updateConversation(core, convId, addId(agentId));
  return meta;
}

/** A sub-agent's metadata.json. */
export async function readAgentMetadata(core: StoreCore, convId: string, agentId: number | string): Promise<AgentMetadata> {
  const live = core.live.get(convId);
  if (live) return live.agentMetadata(parseAgentId(agentId));
  return ofAgent(convId, agentId, () => {
    const file = agentMetadataFile(core.root, convId, agentId);
    return core.tracked(file, () => readJsonFile(file, AgentMetadataSchema));
  });
}

/** Read-modify-write of a sub-agent's metadata.json (`agent_id` fixed, `updated_at` set to now). */
export async function updateAgentMetadata(core: StoreCore, convId: string, agentId: number | string, fn: Mutator<AgentMetadata>, opts: ChangeOptions = {}): Promise<AgentMetadata> {
  const n = parseAgentId(agentId);
  const live = core.live.get(convId);
  if (live) return core.changing(convId, () => live.updateAgentMetadata(n, fn, opts));
  return ofAgent(convId, agentId, async () => {
    const file = agentMetadataFile(core.root, convId, n);
    const next = await core.changing(convId, () =>
      core.tracked(file, () => updateJsonFile(core.queues, file, AgentMetadataSchema, async (current) => ({ ...(await fn(current)), agent_id: n, updated_at: localTimestamp() }))),
    );
    core.notify({ type: "agent", convId, meta: next });
    return next;
  });
}

/** A sub-agent's full conversation (messages.json). */
export async function readAgentMessages(core: StoreCore, convId: string, agentId: number | string): Promise<AgentMessagesFile> {
  const live = core.live.get(convId);
  if (live) return live.agentMessages(parseAgentId(agentId));
  return ofAgent(convId, agentId, () => {
    const file = agentMessagesFile(core.root, convId, agentId);
    return core.tracked(file, () => readJsonFile(file, AgentMessagesFileSchema));
  });
}

/** Read-modify-write of a sub-agent's messages.json (`agent_id` fixed, `updated_at` set to now). */
export async function updateAgentMessages(core: StoreCore, convId: string, agentId: number | string, fn: Mutator<AgentMessagesFile>, opts: ChangeOptions = {}): Promise<AgentMessagesFile> {
  const n = parseAgentId(agentId);
  const live = core.live.get(convId);
  if (live) return core.changing(convId, () => live.updateAgentMessages(n, fn, opts));
  return ofAgent(convId, agentId, async () => {
    const file = agentMessagesFile(core.root, convId, n);
    let at = 0;
    const next = await core.changing(convId, () =>
      core.tracked(file, () =>
        updateJsonFile(core.queues, file, AgentMessagesFileSchema, async (current) => {
          const changed = await fn(current);
          at = messagesDelta(current.messages, changed.messages).at;
          return { ...changed, agent_id: n, updated_at: localTimestamp() };
        }),
      ),
    );
    core.notify({ type: "messages", convId, agentId: n, at });
    return next;
  });
}

/**
 * Every sub-agent of a conversation, by agent id. An agent whose metadata.json cannot be read,
 * or that the conversation lists but has no folder, is reported in `problems`, not thrown.
 */
export async function listAgents(core: StoreCore, convId: string): Promise<AgentList> {
  const live = core.live.get(convId);
  if (live) {
    const prefix = `conversations/${convId}/agents/`;
    return { agents: live.agents(), problems: core.problems().filter((p) => p.file.startsWith(prefix)) };
  }
  const conv = await getConversation(core, convId).catch((error: unknown) => {
    if (error instanceof CorruptFileError) return null; // the agents can still be listed
    throw error;
  });
  const problems: StoreProblem[] = [];
  let names: string[] = [];
  try {
    names = await fs.readdir(agentsDir(core.root, convId));
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw error;
  }
  const ids = names.filter((n) => AGENT_ID_TEXT.test(n)).map(Number);
  const read = await mapLimit(ids, SCAN_CONCURRENCY, async (agentId) => {
    const file = agentMetadataFile(core.root, convId, agentId);
    try {
      const meta = await core.tracked(file, () => readJsonFile(file, AgentMetadataSchema));
      if (meta.agent_id !== agentId) {
        problems.push({ file: core.rel(file), message: `its agent_id ${meta.agent_id} does not match its folder name` });
        return null;
      }
      return meta;
    } catch (error) {
      if (!(error instanceof AstrionError)) throw error;
      problems.push(core.problemOf(file, error));
      return null;
    }
  });
  for (const listed of conv?.agent_ids ?? []) {
    if (!ids.includes(listed)) {
      problems.push({ file: core.rel(conversationMetadataFile(core.root, convId)), message: `lists agent ${listed}, whose folder agents/${listed} is missing` });
    }
  }
  const agents = read.filter((m): m is AgentMetadata => m !== null).sort((a, b) => a.agent_id - b.agent_id);
  problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { agents, problems };
}

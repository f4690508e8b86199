/**
 * Reading every conversation folder: at boot (the in-memory index is loaded from every
 * metadata.json) and when `state.json` must be rebuilt. Nothing here writes.
 */
import "server-only";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { StoreProblem } from "@/lib/contracts/http";
import { AstrionError, NotFoundError } from "@/lib/contracts/errors";
import { readJsonFile } from "./files";
import { mapLimit } from "./map-limit";
import { AGENT_ID_TEXT, agentsDir, conversationMetadataFile, conversationsDir } from "./paths";
import { CONVERSATION_ID_PATTERN, ConversationMetadataSchema, type ConversationMetadata, type StateFile } from "@/lib/contracts/on-disk";
import { compareConversationIds, localTimestamp } from "./time";

/** `state.json` `version` written by this store. */
/** The format version state.json is written with (also by `npm run migrate-data`, lib/pg/migrate-data). */
export const STATE_VERSION = "1.0";

/**
 * A conversation folder without metadata.json younger than this is being created right now
 * (the folder is claimed first, its files are written next) and is skipped, not reported.
 */
const CREATING_GRACE_MS = 10_000;

/** At most this many files are read at once when scanning folders. */
export const SCAN_CONCURRENCY = 32;

/** What a scan of the conversations folder found. */
export interface ScannedConversations {
  conversations: ConversationMetadata[];
  problems: StoreProblem[];
  /** Every folder named like a conversation id, readable or not. */
  folderIds: string[];
}

/** How a scan names a file and what is wrong with it (the store's record of problems). */
export interface ScanReporter {
  rel(file: string): string;
  problemOf(file: string, error: unknown): StoreProblem;
}

/** Reads every conversation folder's metadata.json; broken ones become problems. */
export async function scanConversations(root: string, report: ScanReporter): Promise<ScannedConversations> {
  const dir = conversationsDir(root);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { conversations: [], problems: [], folderIds: [] };
    throw error;
  }
  const folderIds = names.filter((n) => CONVERSATION_ID_PATTERN.test(n));
  const results = await mapLimit(folderIds, SCAN_CONCURRENCY, async (id): Promise<{ meta?: ConversationMetadata; problem?: StoreProblem }> => {
    const file = conversationMetadataFile(root, id);
    try {
      const meta = await readJsonFile(file, ConversationMetadataSchema);
      if (meta.id !== id) {
        return { problem: { file: report.rel(file), message: `its id "${meta.id}" does not match its folder name` } };
      }
      return { meta };
    } catch (error) {
      if (error instanceof NotFoundError) {
        const stat = await fs.stat(path.dirname(file)).catch(() => null);
        if (!stat?.isDirectory()) return {}; // a file named like an id, or deleted meanwhile
        if (Date.now() - stat.mtimeMs < CREATING_GRACE_MS) return {}; // being created
      }
      if (error instanceof AstrionError) return { problem: report.problemOf(file, error) };
      throw error;
    }
  });
  const conversations: ConversationMetadata[] = [];
  const problems: StoreProblem[] = [];
  for (const r of results) {
    if (r.meta) conversations.push(r.meta);
    if (r.problem) problems.push(r.problem);
  }
  return { conversations, problems, folderIds };
}

/**
 * `state.json` as the folders say it should be: the newest conversation, and the count of agent
 * instances (./agent-counter.ts) at least as high as every agent the folders show — each
 * conversation's agents (listed in `agent_ids` or with a folder, even in conversations whose
 * metadata.json is broken) — and as every agent id in use (a data folder numbered globally
 * before agents were numbered within their conversation counted that way).
 */
export async function rebuildState(root: string, { conversations, folderIds }: ScannedConversations): Promise<StateFile> {
  const listed = new Map(conversations.map((meta) => [meta.id, meta.agent_ids]));
  let agents = 0;
  let maxAgentId = 0;
  await mapLimit(folderIds, SCAN_CONCURRENCY, async (id) => {
    let names: string[] = [];
    try {
      names = await fs.readdir(agentsDir(root, id));
    } catch {
      // No agents folder.
    }
    const ids = new Set([...(listed.get(id) ?? []), ...names.filter((n) => AGENT_ID_TEXT.test(n)).map(Number)]);
    agents += ids.size;
    for (const agentId of ids) maxAgentId = Math.max(maxAgentId, agentId);
  });
  const newest = [...folderIds].sort(compareConversationIds).at(-1) ?? null;
  const now = localTimestamp();
  const oldest = conversations.map((c) => c.created_at).sort()[0];
  return {
    version: STATE_VERSION,
    last_conversation_id: newest,
    agent_id_counter: Math.max(agents, maxAgentId),
    created_at: oldest ?? now,
    updated_at: now,
  };
}

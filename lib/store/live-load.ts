import "server-only";
/**
 * What {@link LiveConversation.load} reads from disk before it replays the step log: the
 * sub-agents' seed files (what a crash left of a creation is removed, a broken agent is left out
 * and reported), and the pure replay of a log record over the files in memory.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { NotFoundError } from "@/lib/contracts/errors";
import { readJsonFile } from "./files";
import { AGENT_ID_TEXT, agentMessagesFile, agentMetadataFile, agentsDir } from "./paths";
import { AgentMessagesFileSchema, AgentMetadataSchema, type AgentMessagesFile, type AgentMetadata, type ConversationMetadata, type LeaderMessagesFile } from "@/lib/contracts/on-disk";
import { STEP_LOG_FILE, type BrokenFile } from "./live-contract";
import { applyDelta, parsed, StepRecordSchema, type LoggedLineFile, type StepRecord } from "./step-records";

/** One sub-agent's two files. */
export interface AgentFiles {
  meta: AgentMetadata;
  messages: AgentMessagesFile;
}

/** The sub-agents of a conversation as their files are on disk, in id order, and the files that could not be used. */
export async function readAgentFolders(root: string, id: string): Promise<{ agents: Map<number, AgentFiles>; broken: BrokenFile[] }> {
  const agents = new Map<number, AgentFiles>();
  const broken: BrokenFile[] = [];
  let names: string[] = [];
  try {
    names = await fs.readdir(agentsDir(root, id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // What a crash left of an agent's creation (its files were being written beside their folder).
  for (const name of names.filter((n) => n.startsWith(".creating-"))) await fs.rm(path.join(agentsDir(root, id), name), { recursive: true, force: true });
  for (const agentId of names.filter((n) => AGENT_ID_TEXT.test(n)).map(Number).sort((a, b) => a - b)) {
    // An agent whose files are missing or broken is left out and reported, unless the step log
    // holds its creation (a crash cut short the first write of its folder; see LiveConversation.load).
    // A folder without files is an id a closed conversation's creation claimed before a crash.
    const failures: BrokenFile[] = [];
    const read = async <S extends z.ZodType>(file: string, schema: S): Promise<z.output<S> | null> =>
      readJsonFile(file, schema).catch((error: unknown) => {
        failures.push({ file, error });
        return null;
      });
    const meta = await read(agentMetadataFile(root, id, agentId), AgentMetadataSchema);
    const messages = await read(agentMessagesFile(root, id, agentId), AgentMessagesFileSchema);
    if (meta && messages) agents.set(agentId, { meta, messages });
    // An empty folder is an id claimed by a creation that a crash cut short: nothing to report.
    else if (!(failures.length === 2 && failures.every((f) => f.error instanceof NotFoundError))) broken.push(...failures);
  }
  return { agents, broken };
}

/** A conversation's files in memory, as a replay changes them. */
export interface ReplayedFiles {
  meta: ConversationMetadata;
  leader: LeaderMessagesFile;
  agents: Map<number, AgentFiles>;
}

/**
 * Replays the step log's records over `files` (read from disk), in order. Returns the logged
 * lines apart (to be put back in their files) and `broken` without the files of an agent the log
 * brings back (a folder a crash left half written is whole again from the log's record of it).
 * @throws ValidationError for a record that does not match its schema.
 */
export function replayLog(files: ReplayedFiles, records: readonly unknown[], broken: readonly BrokenFile[]): { lines: Array<{ f: LoggedLineFile; line: string }>; broken: BrokenFile[] } {
  const lines: Array<{ f: LoggedLineFile; line: string }> = [];
  for (const raw of records) {
    const record = parsed(StepRecordSchema, raw, `A record of ${STEP_LOG_FILE}`);
    if (record.k === "line") lines.push(record);
    else replayRecord(files, record);
  }
  return { lines, broken: broken.filter((b) => !files.agents.has(Number(path.basename(path.dirname(b.file))))) };
}

/** Applies one log record (not a JSON Lines one) to `files`; a record for an agent left out changes nothing. */
function replayRecord(files: ReplayedFiles, record: Exclude<StepRecord, { k: "line" }>): void {
  switch (record.k) {
    case "conv":
      files.meta = record.v;
      break;
    case "leader":
      files.leader = applyDelta(files.leader, record.at, record.add, record.head);
      break;
    case "agent_new":
      files.agents.set(record.id, { meta: record.v, messages: record.messages });
      break;
    case "agent": {
      const agent = files.agents.get(record.id);
      if (agent) agent.meta = record.v;
      break;
    }
    case "agent_messages": {
      const agent = files.agents.get(record.id);
      if (agent) agent.messages = applyDelta(agent.messages, record.at, record.add, record.head);
      break;
    }
  }
}

import "server-only";
/**
 * A conversation as the seed's folder (paths relative to `conversations/<id>/` → bytes) and as the
 * values the PostgreSQL rows hold, both ways: what an export snapshot, an import and
 * `npm run migrate-data` convert. The folder's files are the file store's: metadata.json and
 * messages.json, shared_context.json, timeline.jsonl, context.jsonl and actions.jsonl, and per
 * sub-agent agents/<agent_id>/metadata.json and messages.json. JSON files are written as the file
 * store writes them (Python-style, lib/store `toPythonJsonBytes`), so a file read in and written
 * back is the same bytes; a JSON Lines file is its lines, each followed by a newline, kept as text.
 *
 * Reading keeps each JSON value as the file has it (key order included) once it fits its schema:
 * zod's output would reorder keys, and the rows keep what was written. Pure: no I/O.
 */
import { AstrionError, ValidationError } from "@/lib/contracts/errors";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationMetadataSchema,
  describeZodIssues,
  LeaderMessagesFileSchema,
  parseJsonText,
  toPythonJsonBytes,
  type AgentMessagesFile,
  type AgentMetadata,
  type ConversationMetadata,
  type LeaderMessagesFile,
  type LoggedLineFile,
  type ReadBudget,
} from "@/lib/store";
import { SharedContextFileSchema } from "@/lib/shared-context/schema";
import type { z } from "zod";

/** The JSON Lines files of a conversation folder, in the order a folder lists them. */
const LINE_FILE_NAMES: readonly LoggedLineFile[] = ["actions.jsonl", "context.jsonl", "timeline.jsonl"];

/** The shared context's file (lib/shared-context). */
const SHARED_CONTEXT_FILE = "shared_context.json";

/** A conversation's seed folder as values. */
export interface ConversationDocs {
  meta: ConversationMetadata;
  leader: LeaderMessagesFile;
  /** Ascending by agent id. */
  agents: Array<{ meta: AgentMetadata; messages: AgentMessagesFile }>;
  /** Each JSON Lines file's lines, as text without their newlines (a file absent: no entry, or none). */
  lines: Map<LoggedLineFile, string[]>;
  /** shared_context.json's value, or null when the conversation has none. */
  sharedContext: unknown;
}

const AGENT_FOLDER = /^agents\/([1-9]\d{0,15})\/(metadata\.json|messages\.json)$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

function refuse(file: string, message: string): never {
  throw new ValidationError(`${file}: ${message}`, [{ path: file, message }]);
}

function textOf(file: string, data: Uint8Array): string {
  try {
    return utf8.decode(data);
  } catch {
    return refuse(file, "is not UTF-8 text");
  }
}

/** A JSON file's value as written, once it fits `schema`. */
function jsonOf<S extends z.ZodType>(file: string, data: Uint8Array, schema: S): z.output<S> {
  let text = textOf(file, data);
  // A byte-order mark (left by some editors) is not part of the JSON, as the file store reads it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const parsed = parseJsonText(text);
  if (!parsed.ok) refuse(file, parsed.reason);
  const checked = schema.safeParse(parsed.value);
  if (!checked.success) refuse(file, `does not fit its format: ${describeZodIssues(checked.error)}`);
  return parsed.value as z.output<S>;
}

/** A JSON Lines file's lines (the newline after the last one is not a line; an empty line is). */
function linesOf(file: string, data: Uint8Array): string[] {
  const text = textOf(file, data);
  if (text.includes("\u0000")) refuse(file, "holds a NUL character, which PostgreSQL's text cannot");
  if (!text) return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * A conversation's folder files as values, every JSON file checked against its schema and every
 * id against the folder's (`where` names the folder in errors). Files outside the layout are left out.
 * @throws ValidationError naming the file and what is wrong.
 */
export function docsFromFolder(id: string, files: ReadonlyMap<string, Uint8Array>, where = `conversations/${id}`): ConversationDocs {
  const need = (name: string) => files.get(name) ?? refuse(`${where}/${name}`, "is missing");
  const meta = jsonOf(`${where}/metadata.json`, need("metadata.json"), ConversationMetadataSchema);
  const leader = jsonOf(`${where}/messages.json`, need("messages.json"), LeaderMessagesFileSchema);
  if (meta.id !== id) refuse(`${where}/metadata.json`, `its id "${meta.id}" is not its folder's`);
  if (leader.id !== id) refuse(`${where}/messages.json`, `its id "${leader.id}" is not its folder's`);
  const pairs = new Map<number, { meta?: Uint8Array; messages?: Uint8Array }>();
  for (const [rel, data] of files) {
    const m = AGENT_FOLDER.exec(rel);
    if (!m) continue;
    const agentId = Number(m[1]);
    pairs.set(agentId, { ...pairs.get(agentId), [m[2] === "metadata.json" ? "meta" : "messages"]: data });
  }
  const agents: ConversationDocs["agents"] = [];
  for (const agentId of [...pairs.keys()].sort((a, b) => a - b)) {
    const pair = pairs.get(agentId)!;
    const dir = `${where}/agents/${agentId}`;
    if (!pair.meta || !pair.messages) refuse(dir, "needs both metadata.json and messages.json");
    const agentMeta = jsonOf(`${dir}/metadata.json`, pair.meta, AgentMetadataSchema);
    const messages = jsonOf(`${dir}/messages.json`, pair.messages, AgentMessagesFileSchema);
    if (agentMeta.agent_id !== agentId) refuse(`${dir}/metadata.json`, `its agent_id ${agentMeta.agent_id} is not its folder's`);
    if (messages.agent_id !== agentId) refuse(`${dir}/messages.json`, `its agent_id ${messages.agent_id} is not its folder's`);
    agents.push({ meta: agentMeta, messages });
  }
  const lines = new Map<LoggedLineFile, string[]>();
  for (const name of LINE_FILE_NAMES) {
    const data = files.get(name);
    if (data) lines.set(name, linesOf(`${where}/${name}`, data));
  }
  const shared = files.get(SHARED_CONTEXT_FILE);
  const sharedContext = shared ? jsonOf(`${where}/${SHARED_CONTEXT_FILE}`, shared, SharedContextFileSchema) : null;
  return { meta, leader, agents, lines, sharedContext };
}

/**
 * The folder's files of a conversation's values, those `accept` takes, as the file store writes
 * them; a JSON Lines file with no line is left out.
 * @throws AstrionError `payload_too_large` when they hold more than `budget.bytes` (which is spent).
 */
export function folderFromDocs(docs: ConversationDocs, accept: (rel: string) => boolean = () => true, budget: ReadBudget = { bytes: Number.POSITIVE_INFINITY }): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  const put = (rel: string, make: () => Uint8Array) => {
    if (!accept(rel)) return;
    const data = make();
    budget.bytes -= data.byteLength;
    if (budget.bytes < 0) throw new AstrionError("payload_too_large", "The conversations hold more data than one export may (see docs/export-import.md); export fewer at once.");
    out.set(rel, data);
  };
  // In the order the file store's folder read lists them (names sorted, agents' folders by name).
  const entries: Array<[string, () => Uint8Array]> = [
    ["metadata.json", () => toPythonJsonBytes(docs.meta)],
    ["messages.json", () => toPythonJsonBytes(docs.leader)],
  ];
  for (const name of LINE_FILE_NAMES) {
    const lines = docs.lines.get(name);
    if (lines?.length) entries.push([name, () => Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8")]);
  }
  if (docs.sharedContext !== null) entries.push([SHARED_CONTEXT_FILE, () => toPythonJsonBytes(docs.sharedContext)]);
  for (const agent of docs.agents) {
    const dir = `agents/${agent.meta.agent_id}`;
    entries.push([`${dir}/metadata.json`, () => toPythonJsonBytes(agent.meta)], [`${dir}/messages.json`, () => toPythonJsonBytes(agent.messages)]);
  }
  for (const [rel, make] of entries.sort(([a], [b]) => a.localeCompare(b))) put(rel, make);
  return out;
}

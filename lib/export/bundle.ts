/**
 * A conversation folder as a set of files in memory (what an export reads and an import writes),
 * checked against the on-disk contract: which files may exist, and the zod schema of each. Pure.
 *
 * Layout (SPEC §2 plus this product's additions), relative to `conversations/<id>/`:
 * `metadata.json`, `messages.json` (required), `timeline.jsonl`, `context.jsonl`, `actions.jsonl`,
 * `shared_context.json`, and per sub-agent `agents/<agent_id>/metadata.json` + `messages.json`.
 * The step log `steps.jsonl` is not part of it: an export is taken right after a checkpoint,
 * which leaves the log empty, and an import must not replay records from outside.
 */
import { z } from "zod";
import { ContextLineSchema } from "@/lib/context/report";
import { AstrionError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import { MAX_JSON_DEPTH, parseJsonWithin } from "@/lib/input-limits";
import { TimelineRecordSchema, type TimelineRecord } from "@/lib/contracts/timeline-record";
import { JournalLineSchema } from "@/lib/contracts/journal";
import { SharedContextFileSchema } from "@/lib/shared-context/schema";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  CONVERSATION_ID_PATTERN,
  ConversationMetadataSchema,
  LeaderMessagesFileSchema,
  type AgentMessagesFile,
  type AgentMetadata,
  type ConversationMetadata,
  type LeaderMessagesFile,
} from "@/lib/contracts/on-disk";

/** Files of a conversation folder besides the agents', with the schema of the file (JSON) or of each line (JSON Lines). */
export const CONVERSATION_FILES = {
  "metadata.json": { schema: ConversationMetadataSchema, lines: false },
  "messages.json": { schema: LeaderMessagesFileSchema, lines: false },
  "shared_context.json": { schema: SharedContextFileSchema, lines: false },
  "timeline.jsonl": { schema: TimelineRecordSchema, lines: true },
  "context.jsonl": { schema: ContextLineSchema, lines: true },
  "actions.jsonl": { schema: JournalLineSchema, lines: true },
} as const satisfies Record<string, { schema: z.ZodType; lines: boolean }>;

/** Files of each `agents/<agent_id>/` folder. */
export const AGENT_FILES = {
  "metadata.json": AgentMetadataSchema,
  "messages.json": AgentMessagesFileSchema,
} as const;

/** An agent folder name: a positive integer in plain decimal (as lib/store/paths.ts accepts). */
const AGENT_FOLDER = /^[1-9]\d{0,15}$/;

/** Where a path inside a conversation folder belongs, or null when it is not part of the layout. */
export function classifyPath(rel: string): { kind: "conversation"; name: keyof typeof CONVERSATION_FILES } | { kind: "agent"; agentId: number; name: keyof typeof AGENT_FILES } | null {
  if (Object.hasOwn(CONVERSATION_FILES, rel)) return { kind: "conversation", name: rel as keyof typeof CONVERSATION_FILES };
  const parts = rel.split("/");
  if (parts.length === 3 && parts[0] === "agents" && AGENT_FOLDER.test(parts[1]!) && Object.hasOwn(AGENT_FILES, parts[2]!)) {
    const agentId = Number(parts[1]);
    if (Number.isSafeInteger(agentId)) return { kind: "agent", agentId, name: parts[2] as keyof typeof AGENT_FILES };
  }
  return null;
}

/** One sub-agent of a parsed folder. */
export interface FolderAgent {
  meta: AgentMetadata;
  messages: AgentMessagesFile;
}

/** A conversation folder, read and checked. */
export interface ConversationFolder {
  id: string;
  metadata: ConversationMetadata;
  leader: LeaderMessagesFile;
  /** By agent id, ascending. */
  agents: FolderAgent[];
  /** The audit timeline's records (lines that could not be used are skipped when not strict). */
  timeline: TimelineRecord[];
  /** Every file of the layout, by path relative to the folder, as its bytes. */
  files: Map<string, Uint8Array>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function fileError(file: string, message: string, details?: unknown): never {
  throw new ValidationError(`${file}: ${message}`, details ?? [{ path: file, message }]);
}

function text(file: string, data: Uint8Array): string {
  try {
    return utf8.decode(data);
  } catch {
    return fileError(file, "is not UTF-8 text");
  }
}

function parseJson<S extends z.ZodType>(file: string, raw: string, schema: S): z.output<S> {
  const parsed = parseJsonWithin(raw, Number.POSITIVE_INFINITY);
  if (!parsed.ok) fileError(file, parsed.reason === "too_deep" ? `nests deeper than ${MAX_JSON_DEPTH} levels` : "is not valid JSON");
  const result = schema.safeParse(parsed.value);
  if (!result.success) {
    const issues = zodIssues(result.error);
    const first = issues[0];
    fileError(file, `does not fit its format${first ? ` (${first.path ? `${first.path}: ` : ""}${first.message})` : ""}`, issues.map((i) => ({ ...i, path: `${file}${i.path ? `:${i.path}` : ""}` })));
  }
  return result.data;
}

function parseLines<S extends z.ZodType>(file: string, raw: string, schema: S, strict: boolean): Array<z.output<S>> {
  const out: Array<z.output<S>> = [];
  raw.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    try {
      out.push(parseJson(`${file} line ${index + 1}`, line, schema));
    } catch (error) {
      if (strict || !(error instanceof AstrionError)) throw error;
    }
  });
  return out;
}

/**
 * Checks the files of one conversation folder (paths relative to it) and parses what the report
 * needs. `strict` (an import): every file must be of the layout, every JSON file and every line
 * of a JSON Lines file must fit its schema, and ids must agree (metadata.json and messages.json
 * name the folder's id; each agent's files name its folder's number, which metadata.json's
 * `agent_ids` lists). Not strict (an export of this server's own folder): unknown files are left
 * out and unusable JSON Lines lines skipped; the seed JSON files must still parse.
 * @throws ValidationError naming the file and what is wrong.
 */
export function parseConversationFolder(id: string, files: Map<string, Uint8Array>, opts: { strict: boolean }): ConversationFolder {
  if (!CONVERSATION_ID_PATTERN.test(id)) fileError(id, "is not a conversation id (conv_YYYYMMDD_HHMMSS_NNN)");
  const kept = new Map<string, Uint8Array>();
  const agentFiles = new Map<number, Partial<Record<keyof typeof AGENT_FILES, Uint8Array>>>();
  for (const [rel, data] of files) {
    const where = classifyPath(rel);
    if (!where) {
      if (opts.strict) fileError(`${id}/${rel}`, "is not a file of a conversation folder (unknown files are refused)");
      continue;
    }
    kept.set(rel, data);
    if (where.kind === "agent") agentFiles.set(where.agentId, { ...agentFiles.get(where.agentId), [where.name]: data });
  }
  const need = (name: "metadata.json" | "messages.json") => kept.get(name) ?? fileError(`${id}/${name}`, "is missing");
  const metadata = parseJson(`${id}/metadata.json`, text(`${id}/metadata.json`, need("metadata.json")), ConversationMetadataSchema);
  const leader = parseJson(`${id}/messages.json`, text(`${id}/messages.json`, need("messages.json")), LeaderMessagesFileSchema);
  if (metadata.id !== id) fileError(`${id}/metadata.json`, `its id "${metadata.id}" does not match its folder`);
  if (leader.id !== id) fileError(`${id}/messages.json`, `its id "${leader.id}" does not match its folder`);

  const agents: FolderAgent[] = [];
  for (const agentId of [...agentFiles.keys()].sort((a, b) => a - b)) {
    const pair = agentFiles.get(agentId)!;
    const dir = `${id}/agents/${agentId}`;
    if (!pair["metadata.json"] || !pair["messages.json"]) fileError(dir, "needs both metadata.json and messages.json");
    const meta = parseJson(`${dir}/metadata.json`, text(`${dir}/metadata.json`, pair["metadata.json"]), AgentMetadataSchema);
    const messages = parseJson(`${dir}/messages.json`, text(`${dir}/messages.json`, pair["messages.json"]), AgentMessagesFileSchema);
    if (meta.agent_id !== agentId) fileError(`${dir}/metadata.json`, `its agent_id ${meta.agent_id} does not match its folder`);
    if (messages.agent_id !== agentId) fileError(`${dir}/messages.json`, `its agent_id ${messages.agent_id} does not match its folder`);
    if (opts.strict && !metadata.agent_ids.includes(agentId)) fileError(`${id}/metadata.json`, `agent_ids does not list agent ${agentId}, whose folder is there`);
    agents.push({ meta, messages });
  }

  let timeline: TimelineRecord[] = [];
  for (const [name, spec] of Object.entries(CONVERSATION_FILES) as Array<[keyof typeof CONVERSATION_FILES, (typeof CONVERSATION_FILES)[keyof typeof CONVERSATION_FILES]]>) {
    const data = kept.get(name);
    if (!data || name === "metadata.json" || name === "messages.json") continue;
    const file = `${id}/${name}`;
    if (!spec.lines) {
      if (opts.strict) parseJson(file, text(file, data), spec.schema);
      continue;
    }
    if (name !== "timeline.jsonl" && !opts.strict) continue;
    const records = parseLines(file, text(file, data), spec.schema, opts.strict);
    if (name === "timeline.jsonl") timeline = records as TimelineRecord[];
  }
  return { id, metadata, leader, agents, timeline, files: kept };
}

/** Matches a conversation id as a whole token (not inside a longer id or word). */
function idToken(id: string): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_])${id}(?![0-9A-Za-z_])`, "g");
}

/**
 * The files of a conversation under another id: every whole-token occurrence of the old id, in
 * every file (the `id` fields, the envelopes and records of the timeline, message text that names
 * it), becomes the new id. Both ids are `[a-z0-9_]` only, so JSON stays valid byte for byte
 * around them; the result is checked again by the caller.
 */
export function rekeyFiles(files: Map<string, Uint8Array>, from: string, to: string): Map<string, Uint8Array> {
  if (!CONVERSATION_ID_PATTERN.test(from) || !CONVERSATION_ID_PATTERN.test(to)) throw new RangeError("not conversation ids");
  const token = idToken(from);
  const encoder = new TextEncoder();
  const out = new Map<string, Uint8Array>();
  for (const [rel, data] of files) out.set(rel, encoder.encode(utf8.decode(data).replace(token, to)));
  return out;
}

/** The id of a conversation in a zip entry name `<id>/...`, or null. */
export function conversationOfEntry(name: string): { id: string; rel: string } | null {
  const slash = name.indexOf("/");
  if (slash <= 0) return null;
  const id = name.slice(0, slash);
  return CONVERSATION_ID_PATTERN.test(id) ? { id, rel: name.slice(slash + 1) } : null;
}

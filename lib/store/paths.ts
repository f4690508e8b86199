/**
 * Where every file of the on-disk contract lives (SPEC §2). Ids are checked against the strict
 * schemas before they become path segments, so no id can name a path outside the data folder.
 */
import "server-only";
import os from "node:os";
import path from "node:path";
import { ValidationError } from "@/lib/contracts/errors";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

/** The default data folder below the home directory (`mutiagents` is the seed's spelling, kept on purpose). */
const DEFAULT_DATA_ROOT_SEGMENTS = [".astrion", "astrion", "host", "mutiagents"] as const;

/**
 * The data folder: `ASTRION_HOME` (a leading `~` expanded, made absolute) if set and not blank,
 * else `~/.astrion/astrion/host/mutiagents`.
 */
export function resolveDataRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configured = env.ASTRION_HOME?.trim();
  if (configured) {
    const expanded =
      configured === "~" || configured.startsWith("~/") ? path.join(os.homedir(), configured.slice(1)) : configured;
    return path.resolve(expanded);
  }
  return path.join(os.homedir(), ...DEFAULT_DATA_ROOT_SEGMENTS);
}

/**
 * Checks a conversation id (`conv_YYYYMMDD_HHMMSS_NNN`) and returns it.
 * @throws ValidationError with details `[{ path: "id", message }]` for anything else.
 */
export function parseConversationId(id: unknown): string {
  const parsed = ConversationIdSchema.safeParse(id);
  if (!parsed.success) {
    throw new ValidationError("Invalid conversation id", [
      { path: "id", message: "must look like conv_YYYYMMDD_HHMMSS_NNN" },
    ]);
  }
  return parsed.data;
}

/** A sub-agent id as text, as it names the agent's folder `agents/<agent_id>`. */
export const AGENT_ID_TEXT = /^[1-9]\d{0,15}$/;

/**
 * Checks a sub-agent id: a positive safe integer, or its plain decimal text (`"7"`, not `"07"`,
 * `"7.0"` or `"1e1"`), and returns it as a number.
 * @throws ValidationError with details `[{ path: "agent_id", message }]` for anything else.
 */
export function parseAgentId(id: unknown): number {
  const n = typeof id === "number" ? id : typeof id === "string" && AGENT_ID_TEXT.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new ValidationError("Invalid agent id", [{ path: "agent_id", message: "must be a positive integer" }]);
  }
  return n;
}

/** Joins `segments` below `root` and refuses (as a last guard) any result outside it. */
function inside(root: string, ...segments: string[]): string {
  const base = path.resolve(root);
  const full = path.resolve(base, ...segments);
  if (full !== base && !full.startsWith(base + path.sep)) {
    throw new ValidationError("Path leaves the data folder", [{ path: "id", message: "invalid path" }]);
  }
  return full;
}

/** `<root>/agents`: role definitions. */
export function rolesDir(root: string): string {
  return inside(root, "agents");
}

/** `<root>/conversations`. */
export function conversationsDir(root: string): string {
  return inside(root, "conversations");
}

/** `<root>/conversations/index.json`. */
export function indexFile(root: string): string {
  return inside(root, "conversations", "index.json");
}

/** `<root>/state.json`. */
export function stateFile(root: string): string {
  return inside(root, "state.json");
}

/** `<root>/.astrion.lock`: which server process owns the data folder. */
export function lockFile(root: string): string {
  return inside(root, ".astrion.lock");
}

/** `<root>/conversations/<id>`. */
export function conversationDir(root: string, id: unknown): string {
  return inside(root, "conversations", parseConversationId(id));
}

/** `<root>/conversations/<id>/metadata.json`. */
export function conversationMetadataFile(root: string, id: unknown): string {
  return path.join(conversationDir(root, id), "metadata.json");
}

/** `<root>/conversations/<id>/messages.json`: the Team Leader's conversation. */
export function leaderMessagesFile(root: string, id: unknown): string {
  return path.join(conversationDir(root, id), "messages.json");
}

/** `<root>/conversations/<id>/agents`. */
export function agentsDir(root: string, id: unknown): string {
  return path.join(conversationDir(root, id), "agents");
}

/** `<root>/conversations/<id>/agents/<agent_id>`. */
export function agentDir(root: string, id: unknown, agentId: unknown): string {
  return path.join(agentsDir(root, id), String(parseAgentId(agentId)));
}

/** `<root>/conversations/<id>/agents/<agent_id>/metadata.json`. */
export function agentMetadataFile(root: string, id: unknown, agentId: unknown): string {
  return path.join(agentDir(root, id, agentId), "metadata.json");
}

/** `<root>/conversations/<id>/agents/<agent_id>/messages.json`. */
export function agentMessagesFile(root: string, id: unknown, agentId: unknown): string {
  return path.join(agentDir(root, id, agentId), "messages.json");
}

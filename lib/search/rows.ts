/**
 * What of a messages.json is indexed, and how. Pure: the same function serves the incremental
 * path (messages as they are saved) and a rebuild from the files, so both index the same rows.
 */
import type { Message } from "@/lib/contracts/on-disk";
import { localTimestamp } from "@/lib/store/time";

/** One message as the index holds it. */
export interface IndexedMessage {
  /** Position in its messages.json. */
  idx: number;
  messageId: string | null;
  role: Message["role"];
  createdAt: string;
  /** What is searched and shown: the content, then the text values of its tool calls' arguments (their first {@link MAX_INDEXED_CHARS} characters). */
  text: string;
}

/**
 * Characters of one message that are indexed and searched: its beginning. FTS5 indexes a row's
 * text in one synchronous call, and a message may hold a megabyte (a file a model wrote, a pasted
 * log); this much indexes in about a millisecond, so indexing never holds the event loop long.
 */
export const MAX_INDEXED_CHARS = 32_768;

/** `text` cut to {@link MAX_INDEXED_CHARS}, never between the halves of a surrogate pair. */
function indexedPart(text: string): string {
  if (text.length <= MAX_INDEXED_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text[MAX_INDEXED_CHARS - 1]!) ? MAX_INDEXED_CHARS - 1 : MAX_INDEXED_CHARS;
  return text.slice(0, end);
}

/** Ids made by the engine (`msg_assistant_<time base 36><random>`) carry the time they were made. */
const ENGINE_ID = /_([0-9a-z]{8})[0-9a-z]{0,6}$/;
const EARLIEST = Date.UTC(2020, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

/**
 * When a message was written. The seed's message has no time of its own: an explicit
 * `created_at` (on the message or in its metadata) is used when present, else the time in an
 * engine-made `message_id`, else `fallback` (its file's `created_at`).
 */
export function messageTime(message: Message, fallback: string): string {
  const own = (message as { created_at?: unknown }).created_at ?? (message.metadata as { created_at?: unknown } | undefined)?.created_at;
  if (typeof own === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(own)) return own.slice(0, 19);
  const m = message.message_id ? ENGINE_ID.exec(message.message_id) : null;
  if (m) {
    const ms = parseInt(m[1]!, 36);
    if (ms >= EARLIEST && ms < LATEST) return localTimestamp(new Date(ms));
  }
  return fallback;
}

function argumentText(raw: string): string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw;
  }
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (typeof v === "number") out.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(value);
  return out.join("\n");
}

/**
 * The indexed form of `messages[from..]`. System prompts and hidden messages are not indexed
 * (the chat does not show them); nor is a message without text.
 */
export function indexedMessages(messages: readonly Message[], from: number, fallbackTime: string): IndexedMessage[] {
  const out: IndexedMessage[] = [];
  for (let idx = Math.max(0, from); idx < messages.length; idx++) {
    const m = messages[idx]!;
    if (m.role === "system" || m.metadata?.visibility === "hidden") continue;
    const parts = [m.content ?? ""];
    for (const call of m.tool_calls ?? []) parts.push(argumentText(call.function.arguments));
    const text = parts.filter((p) => p.trim() !== "").join("\n");
    if (!text) continue;
    out.push({ idx, messageId: m.message_id ?? null, role: m.role, createdAt: messageTime(m, fallbackTime), text: indexedPart(text) });
  }
  return out;
}

/**
 * Audit summaries (seed 003 §6.3): the timeline records control and event envelopes in full,
 * but request, reply and broadcast payloads — which carry model-written or user-written text —
 * only as a summary: the first characters, a SHA-256 of the exact text and its length. The hash
 * lets a person prove which text was sent (compare it with messages.json) without copying every
 * payload into the audit log. Pure (hashing is computation, not I/O).
 */
import { createHash } from "node:crypto";
import type { EnvelopeType } from "@/lib/contracts/envelope";

/** A summary of one text. */
export interface AuditSummary {
  /** The first `n` characters, whitespace collapsed, with `…` when cut. */
  preview: string;
  /** SHA-256 (hex) of the exact UTF-8 text. */
  sha256: string;
  /** Length of the text in characters (code points). */
  length: number;
}

/** Hex SHA-256 of a string's UTF-8 bytes. */
function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Summarizes a text for the audit timeline. The preview is cut on code points, so a Chinese
 * character or an emoji is never split; the hash is of the text as given (not the preview).
 */
export function summarizeForAudit(text: string, n = 120): AuditSummary {
  // Only the start can be shown: flatten a bounded slice, not a megabyte.
  const head = text.length > n * 8 + 16 ? text.slice(0, n * 8 + 16) : text;
  const flat = Array.from(head.replace(/\s+/g, " ").trim());
  const preview = flat.length > n || head !== text ? `${flat.slice(0, n).join("")}…` : flat.join("");
  return { preview, sha256: sha256Hex(text), length: codePoints(text) };
}

/** Length in code points, counted without building an array of them. */
function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

/** Payload keys that hold written text (by a model or a person) rather than ids or counts. */
const TEXT_PAYLOAD_KEYS: ReadonlySet<string> = new Set(["content", "summary", "task", "question", "answer", "text", "value", "message", "body", "reasoning"]);

/** True for envelope types whose payload is logged only as a summary. */
function summarizesPayload(type: EnvelopeType): boolean {
  return type === "request" || type === "reply" || type === "broadcast";
}

/**
 * The payload as the timeline stores it: unchanged for `event` and `control` (code-made
 * envelopes are logged in full); for request/reply/broadcast, every string under a text key
 * (at any depth) becomes an {@link AuditSummary}, and any other string longer than `n` too.
 */
export function auditPayload(type: EnvelopeType, payload: Record<string, unknown>, n = 120): Record<string, unknown> {
  if (!summarizesPayload(type)) return payload;
  const walk = (value: unknown, key: string | null): unknown => {
    if (typeof value === "string") return (key !== null && TEXT_PAYLOAD_KEYS.has(key)) || codePoints(value) > n ? summarizeForAudit(value, n) : value;
    if (Array.isArray(value)) return value.map((v) => walk(v, key));
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, walk(v, k)]));
    }
    return value;
  };
  return walk(payload, null) as Record<string, unknown>;
}

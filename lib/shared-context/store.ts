import "server-only";
/**
 * Arbitrated changes of a conversation's shared context, over whatever holds it: the engine's
 * storage port (`ConversationFiles.updateSharedContext`, lib/runtime/team/ports.ts: the file store
 * writes `conversations/<id>/shared_context.json`, PostgreSQL its `shared_contexts` row), or the
 * file itself ({@link sharedContextFileChange}, which the file store's adapter uses). Every
 * change is a read-modify-write applied one at a time in the order asked, so concurrent writers —
 * agents, the leader, a person in the UI — are serialized and no update is lost; arbitration
 * itself is the pure {@link applyWrite} / {@link applyDecision}.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { AstrionError, NotFoundError } from "@/lib/contracts/errors";
import { readJsonFile, updateJsonFile, type FileQueues } from "@/lib/store";
import { applyDecision, applyWrite, conflictWindowMs, type WriteInput } from "./arbitrate";
import { emptySharedContext, SharedContextFileSchema, type Decision, type DecisionChoice, type SharedContextFile } from "./schema";

/** File name inside the conversation folder. */
const SHARED_CONTEXT_FILE_NAME = "shared_context.json";

/** Path of the shared context file of the conversation stored in `conversationDir`. */
export function sharedContextFile(conversationDir: string): string {
  return path.join(conversationDir, SHARED_CONTEXT_FILE_NAME);
}

/**
 * One change of a shared context: `fn` gets the current document and returns the next; resolves
 * with what was stored. Changes are applied one at a time, in the order they were asked for.
 */
export type SharedContextChange = (fn: (current: SharedContextFile) => SharedContextFile | Promise<SharedContextFile>) => Promise<SharedContextFile>;

function newConflictId(): string {
  return `conflict_${randomBytes(8).toString("hex")}`;
}

/** A write into a conversation folder deleted meanwhile is "not found", not a disk error. */
function missingFolder(error: unknown, conversationDir: string): unknown {
  if (error instanceof AstrionError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" ? new NotFoundError("The conversation no longer exists.", { folder: path.basename(conversationDir) }) : error;
}

/**
 * The shared context file of a conversation folder; an empty one when the file does not exist yet.
 * @throws CorruptFileError when the file exists but is unusable (it is never replaced silently).
 */
export async function readSharedContext(conversationDir: string): Promise<SharedContextFile> {
  try {
    return await readJsonFile(sharedContextFile(conversationDir), SharedContextFileSchema);
  } catch (error) {
    if (error instanceof NotFoundError) return emptySharedContext();
    throw error;
  }
}

/**
 * Changes of the shared context file of a conversation folder: each under the file's lock (the
 * process's {@link FileQueues}), checked against its schema (`ValidationError`, nothing written)
 * and written atomically and durably (temp file, fsync, rename, folder fsync) before it resolves.
 * @throws NotFoundError when the conversation folder is gone; CorruptFileError when the file exists but is unusable.
 */
export function sharedContextFileChange(queues: FileQueues, conversationDir: string): SharedContextChange {
  return async (fn) => {
    try {
      return await updateJsonFile(queues, sharedContextFile(conversationDir), SharedContextFileSchema, fn, { create: emptySharedContext });
    } catch (error) {
      throw missingFolder(error, conversationDir);
    }
  };
}

/** A write as the store takes it: a {@link WriteInput}, optionally at given times (tests). */
export interface SharedContextWrite extends WriteInput {
  /** When the write is arbitrated; default: when its turn in the change queue comes. */
  now?: Date;
  /** Rule 3's window; default `ASTRION_CONFLICT_WINDOW_MS` (2000 ms). */
  windowMs?: number;
}

/**
 * Arbitrates and stores one write through `change`; resolves once `change` did. The request time
 * is `write.requested_at` (the server's callers stamp it with their RequestClock, ./clock.ts, as
 * the request arrives), else `write.now`, else the time this is called — before the write waits
 * behind earlier ones.
 * @throws ValidationError for an overwrite without `expected_version`, or a value or key count over its limit.
 * @throws ConflictError when the write would wait for a person while too many already do.
 * @throws what `change` throws (NotFoundError for a conversation that is gone, CorruptFileError).
 */
export async function writeSharedContext(change: SharedContextChange, write: SharedContextWrite): Promise<Decision> {
  const { now, windowMs, ...input } = write;
  const requested_at = input.requested_at ?? now ?? new Date();
  let decision: Decision | undefined;
  await change((current) => {
    const out = applyWrite(current, { ...input, requested_at }, { now: now ?? new Date(), windowMs: windowMs ?? conflictWindowMs(), newConflictId });
    decision = out.decision;
    return out.file;
  });
  return decision!;
}

/**
 * Applies a person's decision of a pending conflict, requested at `now` (the route's RequestClock
 * stamp; default the time this is called), and stores it through `change`.
 * @throws NotFoundError when no such conflict exists; ConflictError when it was already decided.
 */
export async function decideConflict(change: SharedContextChange, conflictId: string, choice: DecisionChoice, decidedBy: string, now: Date = new Date()): Promise<Decision> {
  let decision: Decision | undefined;
  await change((current) => {
    const out = applyDecision(current, conflictId, choice, decidedBy, now);
    decision = out.decision;
    return out.file;
  });
  return decision!;
}

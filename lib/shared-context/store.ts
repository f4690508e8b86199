import "server-only";
/**
 * The shared context file of one conversation, `conversations/<id>/shared_context.json`. Every
 * write is a read-modify-write under the file's lock (`updateJsonFile`), so concurrent writers —
 * agents, the leader, a person in the UI — are serialized and no update is lost; arbitration
 * itself is the pure {@link applyWrite} / {@link applyDecision}.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { NotFoundError } from "@/lib/errors";
import { readJsonFile, updateJsonFile } from "@/lib/store";
import { applyDecision, applyWrite, conflictWindowMs, type WriteInput } from "./arbitrate";
import { emptySharedContext, SharedContextFileSchema, type Decision, type DecisionChoice, type SharedContextFile } from "./schema";

/** File name inside the conversation folder. */
export const SHARED_CONTEXT_FILE_NAME = "shared_context.json";

/** Path of the shared context file of the conversation stored in `conversationDir`. */
export function sharedContextFile(conversationDir: string): string {
  return path.join(conversationDir, SHARED_CONTEXT_FILE_NAME);
}

function newConflictId(): string {
  return `conflict_${randomBytes(8).toString("hex")}`;
}

/**
 * The shared context of a conversation; an empty one when the file does not exist yet.
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

/** A write as the store takes it: a {@link WriteInput}, optionally at a given time (tests). */
export interface SharedContextWrite extends WriteInput {
  /** Arrival time of the write; default now. */
  now?: Date;
  /** Rule 3's window; default `ASTRION_CONFLICT_WINDOW_MS` (2000 ms). */
  windowMs?: number;
}

/**
 * Arbitrates and persists one write. The time is taken inside the file's lock, so writes queued
 * behind each other get increasing times, matching the order in which they were applied.
 * @throws ValidationError for an overwrite without `expected_version`, or a value or key count over its limit.
 * @throws CorruptFileError when the file exists but is unusable.
 */
export async function writeSharedContext(conversationDir: string, write: SharedContextWrite): Promise<Decision> {
  let decision: Decision | undefined;
  await updateJsonFile(
    sharedContextFile(conversationDir),
    SharedContextFileSchema,
    (current) => {
      const { now, windowMs, ...input } = write;
      const out = applyWrite(current, input, { now: now ?? new Date(), windowMs: windowMs ?? conflictWindowMs(), newConflictId });
      decision = out.decision;
      return out.file;
    },
    { create: emptySharedContext },
  );
  return decision!;
}

/**
 * Applies a person's decision of a pending conflict and persists it.
 * @throws NotFoundError when no such conflict exists; ConflictError when it was already decided.
 */
export async function decideConflict(
  conversationDir: string,
  conflictId: string,
  choice: DecisionChoice,
  decidedBy: string,
  now: Date = new Date(),
): Promise<Decision> {
  let decision: Decision | undefined;
  await updateJsonFile(
    sharedContextFile(conversationDir),
    SharedContextFileSchema,
    (current) => {
      const out = applyDecision(current, conflictId, choice, decidedBy, now);
      decision = out.decision;
      return out.file;
    },
    { create: emptySharedContext },
  );
  return decision!;
}

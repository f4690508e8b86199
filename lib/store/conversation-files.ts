/**
 * A conversation's own record: creating it, reading and changing its metadata.json (with
 * messages.json's header and the index following), and deleting its folder. Part of the
 * conversation store (lib/store/conversation-store.ts is its public face).
 */
import "server-only";
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { CorruptFileError, NotFoundError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import { readJsonFile, updateJsonFile, writeJsonAtomic, writeJsonAtomicUnlocked } from "./files";
import { conversationDir, conversationMetadataFile, conversationsDir, leaderMessagesFile, parseConversationId } from "./paths";
import {
  CONVERSATION_ID_PATTERN,
  ConversationMetadataSchema,
  ConversationPhaseSchema,
  ConversationStatusSchema,
  LeaderMessagesFileSchema,
  RunModeSchema,
  type ConversationMetadata,
  type LeaderMessagesFile,
  type RunMode,
} from "@/lib/contracts/on-disk";
import { errnoCode, type Mutator, type StoreCore } from "./store-core";
import type { ChangeOptions } from "./live-conversation";
import { compareConversationIds, localTimestamp } from "./time";

/** Title given to a conversation created without one. */
const DEFAULT_CONVERSATION_TITLE = "Untitled conversation";

/** Input of `ConversationStore.create`. */
export interface CreateConversationInput {
  /** Blank or missing: {@link DEFAULT_CONVERSATION_TITLE}. */
  title?: string;
  /** An existing folder, as an absolute path. */
  project_path: string;
  /** The Team Leader's model key. */
  model_key: string;
  /** Default `fast`. `thinking_mode` is derived from it (`run_mode !== "fast"`). */
  run_mode?: RunMode;
}

/** Fields of a conversation's metadata.json that `ConversationStore.update` may patch. */
export const ConversationPatchSchema = z.strictObject({
  title: z.string().trim().min(1, "a title cannot be empty").max(200, "at most 200 characters").optional(),
  status: ConversationStatusSchema.optional(),
  phase: ConversationPhaseSchema.optional(),
  agent_count: z.number().int().nonnegative().optional(),
  agent_ids: z.array(z.number().int().positive()).optional(),
  allowed_roles: z.array(z.string()).nullable().optional(),
  model_key: z.string().min(1).optional(),
});
/** A patch accepted by `ConversationStore.update`. */
export type ConversationPatch = z.infer<typeof ConversationPatchSchema>;

/**
 * Creates a conversation: claims a fresh id by creating its folder, writes metadata.json and
 * messages.json, then adds it to index.json and makes it `state.json`'s last conversation.
 */
export async function createConversation(core: StoreCore, input: CreateConversationInput): Promise<ConversationMetadata> {
  const projectPath = await core.checkProjectPath(input.project_path);
  if (input.title !== undefined && typeof input.title !== "string") {
    throw new ValidationError("Invalid title", [{ path: "title", message: "must be text" }]);
  }
  const title = input.title?.trim() || DEFAULT_CONVERSATION_TITLE;
  if (title.length > 200) {
    throw new ValidationError("Invalid title", [{ path: "title", message: "at most 200 characters" }]);
  }
  const runMode = RunModeSchema.safeParse(input.run_mode ?? "fast");
  if (!runMode.success) {
    throw new ValidationError("Invalid run mode", [{ path: "run_mode", message: "must be fast, thinking or deep" }]);
  }
  if (typeof input.model_key !== "string" || input.model_key.trim() === "") {
    throw new ValidationError("Invalid model key", [{ path: "model_key", message: "a model key is required" }]);
  }

  const now = new Date();
  await core.keeper.ready();
  await fs.mkdir(conversationsDir(core.root), { recursive: true });
  const id = await core.claimConversationId(now);
  const ts = localTimestamp(now);
  const meta: ConversationMetadata = {
    id,
    title,
    created_at: ts,
    updated_at: ts,
    project_path: projectPath,
    model_key: input.model_key.trim(),
    thinking_mode: runMode.data !== "fast",
    run_mode: runMode.data,
    status: "active",
    agent_count: 0,
    agent_ids: [],
    phase: "IDLE",
  };
  const messages: LeaderMessagesFile = { id, title, created_at: ts, updated_at: ts, messages: [], metadata: {}, token_statistics: {} };
  try {
    await writeJsonAtomic(core.queues, conversationMetadataFile(core.root, id), meta, ConversationMetadataSchema);
    await writeJsonAtomic(core.queues, leaderMessagesFile(core.root, id), messages, LeaderMessagesFileSchema);
  } catch (error) {
    // Do not leave a half-made conversation behind.
    await fs.rm(conversationDir(core.root, id), { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  await core.indexed(meta);
  await core.updateState((state) => ({
    ...state,
    last_conversation_id:
      state.last_conversation_id && compareConversationIds(state.last_conversation_id, id) > 0 ? state.last_conversation_id : id,
    updated_at: localTimestamp(),
  }));
  return meta;
}

/**
 * A conversation's metadata.json (from memory when it is open). An open conversation's object is
 * the one it holds, as for an agent's metadata: every change replaces it, and callers only read it
 * (a copy for every step's reads cost more than any of them).
 */
export async function getConversation(core: StoreCore, id: string): Promise<ConversationMetadata> {
  const live = core.live.get(id);
  if (live) return live.metadata;
  const file = conversationMetadataFile(core.root, id);
  try {
    return await core.tracked(file, () => readJsonFile(file, ConversationMetadataSchema));
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError(`Conversation ${id} does not exist`, { id });
    throw error;
  }
}

function checkedId(id: string, changed: ConversationMetadata): ConversationMetadata {
  if (changed.id !== id) throw new ValidationError("A conversation's id cannot change", [{ path: "id", message: "cannot change" }]);
  return changed;
}

/**
 * Changes a conversation by a patch or a function of its metadata; `updated_at` becomes now and
 * messages.json's `title`/`updated_at` and the index entry follow. Updates of one conversation
 * are applied one after another, so none is lost.
 */
export async function updateConversation(core: StoreCore, id: string, patch: ConversationPatch | Mutator<ConversationMetadata>, opts: ChangeOptions = {}): Promise<ConversationMetadata> {
  parseConversationId(id);
  let apply: Mutator<ConversationMetadata>;
  if (typeof patch === "function") {
    apply = patch;
  } else {
    const parsed = ConversationPatchSchema.safeParse(patch);
    if (!parsed.success) throw new ValidationError("Invalid conversation change", zodIssues(parsed.error));
    const changes = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
    apply = (current) => ({ ...current, ...changes });
  }
  await core.keeper.ready();
  const live = core.live.get(id);
  if (live) return core.changing(id, () => live.updateMetadata(async (current) => checkedId(id, await apply(structuredClone(current))), opts));
  return core.withConversationLock(id, () =>
    core.changing(id, async () => {
      const changed = checkedId(id, await apply(structuredClone(await getConversation(core, id))));
      const next: ConversationMetadata = { ...changed, updated_at: localTimestamp() };
      await writeJsonAtomicUnlocked(conversationMetadataFile(core.root, id), next, ConversationMetadataSchema);
      await syncLeaderHeader(core, next);
      await core.indexed(next);
      return next;
    }),
  );
}

/** Keeps messages.json's `title` and `updated_at` in step with metadata.json. */
async function syncLeaderHeader(core: StoreCore, meta: ConversationMetadata): Promise<void> {
  const file = leaderMessagesFile(core.root, meta.id);
  try {
    await updateJsonFile(core.queues, file, LeaderMessagesFileSchema, (m) => ({ ...m, title: meta.title, updated_at: meta.updated_at }));
    core.fileProblems.delete(core.rel(file));
  } catch (error) {
    // metadata.json is the source of truth and is already written; a broken or missing
    // messages.json is reported, not replaced.
    if (!(error instanceof NotFoundError || error instanceof CorruptFileError)) throw error;
    core.fileProblems.set(core.rel(file), core.problemOf(file, error));
  }
}

/**
 * Deletes a conversation's folder (moved out of sight first, so a half-deleted folder is never
 * listed), its index entry, and points `state.last_conversation_id` at the newest remaining
 * conversation (or null) when it named this one. The caller lets it go from memory first.
 */
export async function removeConversation(core: StoreCore, id: string): Promise<void> {
  await core.withConversationLock(id, () =>
    core.changing(id, async () => {
      const dir = conversationDir(core.root, id);
      const trash = path.join(conversationsDir(core.root), `.deleting-${id}-${randomBytes(4).toString("hex")}`);
      try {
        await fs.rename(dir, trash);
      } catch (error) {
        if (errnoCode(error) === "ENOENT") throw new NotFoundError(`Conversation ${id} does not exist`, { id });
        throw error;
      }
      await fs.rm(trash, { recursive: true, force: true, maxRetries: 3 });
      core.forgetProblemsOf(id);
      await core.keeper.remove(id);
      core.notify({ type: "removed", convId: id });
      await core.updateState(async (state) => {
        // Read under the root lock, so a conversation created meanwhile is seen.
        const names = await fs.readdir(conversationsDir(core.root)).catch(() => [] as string[]);
        const ids = names.filter((n) => CONVERSATION_ID_PATTERN.test(n)).sort(compareConversationIds);
        const last = state.last_conversation_id;
        if (last && last !== id && ids.includes(last)) return state;
        return { ...state, last_conversation_id: ids.at(-1) ?? null, updated_at: localTimestamp() };
      });
    }),
  );
}

/** Removes the remains of deletes and imports a crash cut short (boot). */
export async function removeInterruptedDeletes(core: StoreCore): Promise<void> {
  const dir = conversationsDir(core.root);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(".deleting-") || name.startsWith(".importing-")) await fs.rm(path.join(dir, name), { recursive: true, force: true });
    // An overwrite cut short between its two renames: the old folder goes back if the new one is not there.
    const replaced = /^\.replaced-(conv_\d{8}_\d{6}_\d{3,6})-[0-9a-f]+$/.exec(name);
    if (replaced) {
      const target = path.join(dir, replaced[1]!);
      const there = await fs.stat(target).then(() => true, () => false);
      if (there) await fs.rm(path.join(dir, name), { recursive: true, force: true });
      else await fs.rename(path.join(dir, name), target);
    }
  }
}

/**
 * The Team Leader's messages.json and a conversation's JSON Lines files (timeline, context
 * reports, action journal). Part of the conversation store (lib/store/conversation-store.ts is
 * its public face): from memory and through the step log when the conversation is open, from and
 * to the files otherwise.
 */
import "server-only";
import path from "node:path";
import { NotFoundError } from "@/lib/contracts/errors";
import { getConversation } from "./conversation-files";
import { updateJsonFile, readJsonFile, writeJsonAtomicUnlocked } from "./files";
import { messagesDelta, type ChangeOptions, type LeaderChangeOptions } from "./live-conversation";
import { conversationDir, conversationMetadataFile, leaderMessagesFile, parseConversationId } from "./paths";
import { ConversationMetadataSchema, LeaderMessagesFileSchema, type ConversationMetadata, type LeaderMessagesFile } from "@/lib/contracts/on-disk";
import type { LoggedLineFile } from "./step-records";
import type { Mutator, StoreCore } from "./store-core";
import { localTimestamp } from "./time";

/**
 * Appends `line` to one of a conversation's JSON Lines files and resolves once it is durable:
 * through the step log when the conversation is open (lib/store/logged-lines.ts), with an fsync
 * of its own otherwise. The conversation's folder must exist (a deleted one is not recreated).
 */
export async function appendLine(core: StoreCore, id: string, name: LoggedLineFile, line: string, opts: ChangeOptions = {}): Promise<void> {
  parseConversationId(id);
  const live = core.live.get(id);
  if (live) return live.appendLine(name, line, opts);
  await core.lines.append(path.join(conversationDir(core.root, id), name), line);
}

function noLeaderFile(core: StoreCore, id: string, file: string): NotFoundError {
  return new NotFoundError(`Conversation ${id} has no messages.json`, { id, file: core.rel(file) });
}

/** The Team Leader's conversation (messages.json). */
export async function readLeaderMessages(core: StoreCore, id: string): Promise<LeaderMessagesFile> {
  const live = core.live.get(id);
  if (live) return live.leader;
  const file = leaderMessagesFile(core.root, id);
  try {
    return await core.tracked(file, () => readJsonFile(file, LeaderMessagesFileSchema));
  } catch (error) {
    if (error instanceof NotFoundError) {
      await getConversation(core, id); // says "conversation does not exist" when that is the reason
      throw noLeaderFile(core, id, file);
    }
    throw error;
  }
}

/**
 * Read-modify-write of the Team Leader's messages.json. `id` and `title` stay those of the
 * conversation; `updated_at` becomes now and, unless `touch` is false, the conversation's
 * metadata.json and index entry get the same `updated_at` (so the list shows recent activity first).
 */
export async function updateLeaderMessages(core: StoreCore, id: string, fn: Mutator<LeaderMessagesFile>, opts: LeaderChangeOptions & ChangeOptions = {}): Promise<LeaderMessagesFile> {
  parseConversationId(id);
  await core.keeper.ready();
  const live = core.live.get(id);
  if (live) return core.changing(id, () => live.updateLeader(fn, opts));
  return core.withConversationLock(id, () =>
    core.changing(id, async () => {
      const meta = await getConversation(core, id);
      const now = localTimestamp();
      const file = leaderMessagesFile(core.root, id);
      let next: LeaderMessagesFile;
      let at = 0;
      try {
        next = await core.tracked(file, () =>
          updateJsonFile(core.queues, file, LeaderMessagesFileSchema, async (current) => {
            const changed = await fn(current);
            at = messagesDelta(current.messages, changed.messages).at;
            return { ...changed, id, title: meta.title, updated_at: now };
          }),
        );
        core.notify({ type: "messages", convId: id, agentId: null, at });
      } catch (error) {
        if (error instanceof NotFoundError) throw noLeaderFile(core, id, file);
        throw error;
      }
      const fields = opts.metadata?.(next);
      if (opts.touch !== false || fields) {
        const touched: ConversationMetadata = { ...meta, ...fields, id, updated_at: opts.touch !== false ? now : meta.updated_at };
        await writeJsonAtomicUnlocked(conversationMetadataFile(core.root, id), touched, ConversationMetadataSchema);
        await core.indexed(touched);
      }
      return next;
    }),
  );
}

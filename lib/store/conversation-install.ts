/**
 * Putting a whole conversation folder in place: an import (lib/export). Part of the conversation
 * store (lib/store/conversation-store.ts is its public face).
 */
import "server-only";
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { ConflictError, ValidationError } from "@/lib/contracts/errors";
import { fsyncDir } from "./atomic";
import { writeFolderFiles } from "./folder-files";
import { conversationDir, conversationsDir, parseConversationId } from "./paths";
import { ConversationMetadataSchema, type ConversationMetadata } from "@/lib/contracts/on-disk";
import { errnoCode, type StoreCore } from "./store-core";
import { compareConversationIds, localTimestamp } from "./time";

/**
 * Places a conversation folder built elsewhere (an import; its files already checked) in the
 * data folder, then lists it (index.json) and moves `state.json` on: its `agent_id_counter`, the
 * count of agent instances (./agent-counter.ts), by the folder's agents. Their ids are kept: agent
 * ids are numbered within their conversation, so they cannot be any other conversation's, and the
 * conversation's next agent comes after them (lib/store/agent-files.ts).
 * - `create`: under `id`, which must be free (ConflictError otherwise);
 * - `new_id`: under a freshly claimed id; `files(id)` builds the files for it;
 * - `replace`: over the existing conversation `id`, which must not be held in memory: the old
 *   folder is renamed aside, the new one renamed in, the old one deleted (a crash between the
 *   renames is undone at boot).
 * The project folder named in metadata.json must pass the same rules as a new conversation's.
 */
export async function installConversation(
  core: StoreCore,
  id: string,
  mode: "create" | "new_id" | "replace",
  files: (id: string) => Map<string, Uint8Array>,
): Promise<ConversationMetadata> {
  parseConversationId(id);
  await core.keeper.ready();
  const dirOf = (target: string) => conversationDir(core.root, target);
  const metaOf = (built: Map<string, Uint8Array>) => {
    const bytes = built.get("metadata.json");
    if (!bytes) throw new ValidationError("metadata.json is missing", [{ path: "metadata.json", message: "missing" }]);
    return ConversationMetadataSchema.parse(JSON.parse(Buffer.from(bytes).toString("utf8")));
  };
  await core.checkProjectPath(metaOf(files(id)).project_path);
  const staging = path.join(conversationsDir(core.root), `.importing-${randomBytes(6).toString("hex")}`);
  let claimed: string | null = null;
  try {
    const target = mode === "new_id" ? (claimed = await core.claimConversationId(new Date())) : id;
    const built = files(target);
    const meta = metaOf(built);
    if (meta.id !== target) throw new ValidationError("metadata.json names another conversation", [{ path: "metadata.json:id", message: "must be the folder's id" }]);
    await writeFolderFiles(staging, built);
    await core.withConversationLock(target, () => core.changing(target, async () => {
      if (mode === "create") {
        try {
          await fs.mkdir(dirOf(target));
        } catch (error) {
          if (errnoCode(error) === "EEXIST") throw new ConflictError(`Conversation ${target} exists already`, { id: target });
          throw error;
        }
        claimed = target;
      }
      if (mode === "replace") {
        if (core.live.has(target) || core.opening.has(target)) throw new ConflictError(`Conversation ${target} is in use; stop it and try again`, { id: target });
        const aside = path.join(conversationsDir(core.root), `.replaced-${target}-${randomBytes(4).toString("hex")}`);
        const moved = await fs.rename(dirOf(target), aside).then(() => true, (error: unknown) => {
          if (errnoCode(error) === "ENOENT") return false;
          throw error;
        });
        await fs.rename(staging, dirOf(target));
        await fsyncDir(conversationsDir(core.root));
        if (moved) await fs.rm(aside, { recursive: true, force: true, maxRetries: 3 });
      } else {
        // Renamed over the empty folder that claimed the id: the folder appears with every file.
        await fs.rename(staging, dirOf(target));
        claimed = null;
        await fsyncDir(conversationsDir(core.root));
      }
    }));
    claimed = null;
    core.forgetProblemsOf(target);
    await core.indexed(meta);
    core.notify({ type: "installed", convId: target });
    await core.updateState((state) => ({
      ...state,
      agent_id_counter: (state.agent_id_counter ?? 0) + meta.agent_ids.length,
      last_conversation_id:
        state.last_conversation_id && compareConversationIds(state.last_conversation_id, target) > 0 ? state.last_conversation_id : target,
      updated_at: localTimestamp(),
    }));
    return meta;
  } finally {
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
    // An id claimed for this import whose folder never got its files: given up again.
    if (claimed) await fs.rmdir(dirOf(claimed)).catch(() => undefined);
  }
}

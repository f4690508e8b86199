/**
 * A conversation store for tests, given the project folder rules the server gives its own
 * (lib/server/app.ts): the workspace's check, with the data folder protected.
 */
import { ConversationStore } from "@/lib/store/conversation-store";
import { projectFolderCheckFor } from "@/lib/workspace/project-folder";

export function newConversationStore(root: string): ConversationStore {
  return new ConversationStore(root, { checkProjectFolder: projectFolderCheckFor(root) });
}

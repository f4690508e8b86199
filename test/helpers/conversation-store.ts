/**
 * A conversation store for tests, given the project folder rules the server gives its own
 * (lib/server/app.ts): the workspace's check, with the data folder protected (no other folder:
 * the test's process registered none). The file I/O parts
 * the composition root makes once per process are made fresh for each store unless a test hands
 * in its own (to share them between stores, as one process does).
 */
import { FileQueues } from "@/lib/store/atomic";
import { JsonLineFiles } from "@/lib/store/jsonl";
import { ConversationStore } from "@/lib/store/conversation-store";
import { projectFolderCheckFor } from "@/lib/workspace/project-folder";
import { ProtectedFolders } from "@/lib/workspace/protected";

/** The parts of a process a store writes through. */
export interface StoreParts {
  queues: FileQueues;
  lines: JsonLineFiles;
}

/** Fresh parts: what a new process would have. */
export function newStoreParts(): StoreParts {
  return { queues: new FileQueues(), lines: new JsonLineFiles() };
}

export function newConversationStore(root: string, parts: StoreParts = newStoreParts()): ConversationStore {
  return new ConversationStore(root, { checkProjectFolder: projectFolderCheckFor(new ProtectedFolders(), root), ...parts });
}

/**
 * The file store as a conversation catalog harness (test/conformance/conversation-catalog.ts): a
 * ConversationStore over a temp data folder, booted as the server boots it, and at the end every
 * conversation it opened let go and the folder removed.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { newConversationStore } from "@/test/helpers/conversation-store";
import type { CatalogFactory } from "@/test/conformance/conversation-catalog";

export const fileCatalogFactory: CatalogFactory = {
  async create() {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-catalog-"));
    const store = newConversationStore(root);
    await store.init();
    return {
      catalog: store,
      async close() {
        await store.closeAll();
        await fs.rm(root, { recursive: true, force: true });
      },
    };
  },
};

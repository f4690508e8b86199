/** The conversation catalog's conformance suite (./conversation-catalog.ts) against the file store. */
import { fileCatalogFactory } from "@/test/support/file-catalog";
import { describeConversationCatalog } from "./conversation-catalog";

describeConversationCatalog("file store", fileCatalogFactory);

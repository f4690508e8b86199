/**
 * The conversation catalog's conformance suite (test/conformance/conversation-catalog.ts) against
 * the PostgreSQL store's catalog (lib/pg/catalog.ts), on a throwaway cluster this file starts.
 */
import { describeConversationCatalog } from "@/test/conformance/conversation-catalog";
import { pgCatalogFactory } from "@/test/support/pg-catalog";
import { pgClusterForFile } from "@/test/support/pg-cluster";

const pg = pgClusterForFile();

describeConversationCatalog("PostgreSQL", pgCatalogFactory(() => pg.cluster));

import "server-only";
/**
 * Every migration of the PostgreSQL schema, in version order. Migrations are TypeScript modules
 * exporting their SQL (not .sql files) so the server bundles (Next's and scripts/build-core.mjs's)
 * carry them with no file to ship beside. A new one is a new file here, appended to the list.
 */
import { ENGINE_STORAGE } from "./0001-engine-storage";
import { CATALOG } from "./0002-catalog";
import { TAKEOVER } from "./0003-takeover";
import { PEOPLE } from "./0005-people";
import { MEMORY } from "./0006-memory";
import type { Migration } from "./types";

export type { Migration } from "./types";

/** The migrations, ascending by version. */
export const MIGRATIONS: readonly Migration[] = [ENGINE_STORAGE, CATALOG, TAKEOVER, PEOPLE, MEMORY];

/**
 * Public face of the people of team mode (issue 32): the service over the data folder's people
 * store (Better Auth's tables and the invitations): the data folder's SQLite file, or PostgreSQL
 * on the scaled backend.
 */
export { People } from "./service";
export { secretFromEnv } from "./auth";
export { openSqlitePeopleStore } from "./sqlite-store";
export type { PeopleStore } from "./store";

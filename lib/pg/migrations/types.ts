import "server-only";
/** The shape of one versioned migration of the PostgreSQL schema (lib/pg/migrate.ts applies them). */

/** One migration: applied once, in version order, in one transaction, recorded in `schema_migrations`. */
export interface Migration {
  /** 1, 2, 3…: the order of application; never reused. */
  version: number;
  /** A short snake_case name, recorded beside the version. */
  name: string;
  /** The SQL, run as one simple query (several statements may follow one another). Never edited once released. */
  sql: string;
}

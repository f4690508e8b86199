import "server-only";
/**
 * The PostgreSQL connection pool of an instance, from `ASTRION_DATABASE_URL`. Only this folder
 * imports `pg`, and the composition root loads it with `await import()` when the variable is set,
 * so an instance on the data folder never loads a database client.
 */
import { Pool } from "pg";

/** The variable that switches an instance to PostgreSQL. */
export const DATABASE_URL_VARIABLE = "ASTRION_DATABASE_URL";

/** The database URL the environment gives, or null (the data folder is used). */
export function databaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  return env[DATABASE_URL_VARIABLE]?.trim() || null;
}

/** How a pool's connections behave. */
export interface PoolOptions {
  /** Shown in `pg_stat_activity` (default `astrion`). */
  applicationName?: string;
  /** Connections at most (default 10). */
  max?: number;
  /**
   * The server ends a session left idle inside a transaction this long (ms, default 5000): an
   * instance paused in the middle of a commit must not hold its lease rows locked, or a takeover
   * would wait for it forever.
   */
  idleInTransactionMs?: number;
  /** A connection not made within this long fails (ms, default 10000), so a commit waiting for one fails instead of waiting forever. */
  connectTimeoutMs?: number;
}

/** A pool on `url`; an idle connection's failure is logged, not thrown. */
export function createPool(url: string, options: PoolOptions = {}): Pool {
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "astrion",
    idle_in_transaction_session_timeout: options.idleInTransactionMs ?? 5000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // A server gone without a word (a dead machine) is noticed by TCP keep-alive, not only at the next query.
    keepAlive: true,
  });
  pool.on("error", (error) => console.error(`[astrion] PostgreSQL: an idle connection failed: ${error.message}`));
  return pool;
}

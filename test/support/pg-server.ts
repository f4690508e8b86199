/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, the server started
 * with `pg_ctl` on a free loopback port with its unix socket in that folder, a fresh database per
 * test file or case ({@link PgCluster.createDatabase}, a copy of template0), and `stop()`, which
 * stops the server and removes the folder. PostgreSQL refuses to run as root, so as root the
 * binaries run as the `postgres` user the Debian package creates (`runuser`), and the folder is
 * made theirs. Missing binaries are a failure naming the install command, never a skip.
 * The caller stops it (and it is stopped at the process's exit, if that comes first); a vitest file
 * uses ./pg-cluster.ts `pgClusterForFile`, this module is free of vitest so Playwright specs can
 * start one too.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { promises as fs } from "node:fs";
import net, { type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "pg";

const run = promisify(execFile);

/** What to run when PostgreSQL's server is missing (the message of every failure to find it). */
const POSTGRES_INSTALL = "apt-get install -y postgresql";

/** The folder of initdb and pg_ctl: the newest /usr/lib/postgresql/<version>/bin, else PATH. */
function binaries(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(path.join(base, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0]) return path.join(base, versions[0], "bin");
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, "initdb")) && existsSync(path.join(dir, "pg_ctl"))) return dir;
  }
  throw new Error(`PostgreSQL's server (initdb, pg_ctl) is not installed: ${POSTGRES_INSTALL}`);
}

/** As root, the uid and gid of the `postgres` user the binaries run as; null when not root. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) throw new Error(`running as root, PostgreSQL needs its own user "postgres", which its package creates: ${POSTGRES_INSTALL}`);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A command line run as the server's user (as it is when not root). */
function asServerUser(user: { uid: number } | null, bin: string, args: string[]): [string, string[]] {
  return user ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A running throwaway cluster. */
export interface PgCluster {
  readonly host: string;
  readonly port: number;
  /** A URL of database `name` (default `postgres`, the maintenance database). */
  url(name?: string): string;
  /** Makes a fresh, empty database (from template0) and returns its URL. */
  createDatabase(): Promise<string>;
  /** Drops a database made by {@link createDatabase} (its connections are ended first). */
  dropDatabase(url: string): Promise<void>;
  /** Stops the server at once and removes its folder. */
  stop(): Promise<void>;
}

/** Starts a cluster: see the file's header. */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = binaries();
  const user = serverUser();
  const base = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-pg-"));
  const data = path.join(base, "data");
  const log = path.join(base, "server.log");
  if (user) await fs.chown(base, user.uid, user.gid);
  const exec = (name: string, args: string[]) => run(...asServerUser(user, path.join(bin, name), args));
  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    spawnSync(...asServerUser(user, path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]), { stdio: "ignore" });
    rmSync(base, { recursive: true, force: true });
  };
  try {
    await exec("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"]);
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const options = `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c max_connections=60 -c shared_buffers=16MB`;
      try {
        await exec("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", "-o", options, "start"]);
        break;
      } catch (error) {
        // Another process may have taken the port between the probe and the start: try another.
        if (attempt >= 3) throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${await fs.readFile(log, "utf8").catch(() => "")}`);
      }
    }
    process.once("exit", stopNow);
    const host = "127.0.0.1";
    const url = (name = "postgres") => `postgresql://postgres@${host}:${port}/${name}`;
    const admin = async <T>(fn: (c: Client) => Promise<T>): Promise<T> => {
      const client = new Client({ connectionString: url() });
      await client.connect();
      try {
        return await fn(client);
      } finally {
        await client.end();
      }
    };
    let databases = 0;
    return {
      host,
      port,
      url,
      async createDatabase() {
        const name = `astrion_test_${++databases}`;
        await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0`));
        return url(name);
      },
      async dropDatabase(dbUrl) {
        const name = new URL(dbUrl).pathname.slice(1);
        await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      },
      async stop() {
        process.off("exit", stopNow);
        if (stopped) return;
        stopped = true;
        await exec("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
        await fs.rm(base, { recursive: true, force: true });
      },
    };
  } catch (error) {
    stopNow();
    throw error;
  }
}

/**
 * The server's code is loaded once per process: the store, the engine and the composition root
 * are one bundle (`.next/astrion-core/core.mjs`, scripts/build-core.mjs) that scripts/serve.mjs
 * loads before Next, and Next's route bundles carry none of their code (lib/server/get-app.ts).
 * Before, every route chunk that reached the app held its own copy, 15 copies in one process
 * (docs/architecture.md, "Loaded once per process?").
 *
 * Checked on the built app: no file Next built holds the store's or the composition root's code,
 * and a server that has answered every route of the API once has loaded exactly one module
 * holding each (test/helpers/module-copies.mjs, preloaded into the server, records them).
 * Without ASTRION_DATABASE_URL and ASTRION_REDIS_URL (the data folder, the embedded default) it
 * has loaded no module of a database client: those are imported only when the variables ask.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_METHODS, ROUTES } from "@/lib/openapi";
import { REPO_ROOT, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

/** Texts that survive minification, one per part of the server, and the source file each is in. */
const MARKERS = {
  store: { file: "lib/store/lock.ts", text: "Stop that server or set ASTRION_HOME to another folder." },
  app: { file: "lib/server/app.ts", text: "unfinished temp file(s) left by an earlier crash" },
};
const CORE_BUNDLE = path.join(REPO_ROOT, ".next", "astrion-core", "core.mjs");
/** The core's folder: core.mjs and the chunks it is split into at dynamic imports (the PostgreSQL store, the Redis bus, what they share with it). */
const CORE_DIR = path.dirname(CORE_BUNDLE);
/** The packages of the PostgreSQL and Redis backends, which the data folder's server must not load. */
const BACKEND_PACKAGES = ["pg", "pg-pool", "pg-protocol", "ioredis", "rate-limiter-flexible"];
/** A package every server loads: shows the record of packages is real. */
const LOADED_PACKAGE = "openai";

/** Every JavaScript file under `dir`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((f) => path.join(dir, f))
    .filter((f) => /\.(c|m)?js$/.test(f) && statSync(f).isFile());
}

interface Report {
  loaded: Record<keyof typeof MARKERS, string[]>;
  packages: Record<string, string[]>;
  heap_used_mb: number;
  rss_mb: number;
}

let server: TestServer;
const out = path.join(mkdtempSync(path.join(os.tmpdir(), "astrion-copies-")), "report.json");

beforeAll(async () => {
  server = await startServer({
    env: {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${path.join(REPO_ROOT, "test", "helpers", "module-copies.mjs")}`.trim(),
      MODULE_COPIES_MARKERS: JSON.stringify(Object.fromEntries(Object.entries(MARKERS).map(([name, m]) => [name, m.text]))),
      MODULE_COPIES_OUT: out,
      MODULE_COPIES_PACKAGES: JSON.stringify([...BACKEND_PACKAGES, LOADED_PACKAGE]),
      ASTRION_DATABASE_URL: "",
      ASTRION_REDIS_URL: "",
    },
  });
});

afterAll(async () => {
  await server?.stop();
});

describe("the server's code, loaded once per process", () => {
  it("holds each marker in its source (so the checks below look for something real)", () => {
    for (const m of Object.values(MARKERS)) expect(readFileSync(path.join(REPO_ROOT, m.file), "utf8"), m.file).toContain(m.text);
  });

  it("is built into the core bundle alone: no chunk Next built carries the store or the composition root", () => {
    expect(existsSync(CORE_BUNDLE)).toBe(true);
    const coreFiles = jsFiles(CORE_DIR);
    const nextFiles = jsFiles(path.join(REPO_ROOT, ".next", "server"));
    expect(nextFiles.length).toBeGreaterThan(0);
    for (const [name, m] of Object.entries(MARKERS)) {
      const copies = coreFiles.reduce((n, f) => n + readFileSync(f, "utf8").split(m.text).length - 1, 0);
      expect(copies, `${name} in the core bundle's files`).toBe(1);
      expect(nextFiles.filter((f) => readFileSync(f, "utf8").includes(m.text)).map((f) => path.relative(REPO_ROOT, f)), `${name} in Next's server chunks`).toEqual([]);
    }
  });

  it("loads one copy after every route of the API has answered once", async () => {
    const project = tempDir("astrion-copies-project-");
    writeFileSync(path.join(project, "README.md"), "# probe\n");
    const created = await server.api("POST", "/api/conversations", { title: "copies", project_path: project });
    expect(created.status).toBe(201);
    const id: string = created.json.conversation.id;

    const answered: string[] = [];
    for (const route of ROUTES) {
      const url = route.path.replace("{id}", id).replace(/\{[^}]+\}/g, "x");
      // Every method but DELETE, which would take the conversation away from the routes after it.
      for (const method of HTTP_METHODS.filter((m) => m !== "DELETE" && route.methods[m])) {
        if (route.path.endsWith("/events")) {
          // An SSE stream never ends by itself: its headers are enough.
          const aborted = new AbortController();
          const res = await fetch(`${server.url}${url}`, { signal: aborted.signal });
          aborted.abort();
          answered.push(`${method} ${route.path} ${res.status}`);
          continue;
        }
        const res = await server.api(method, url, method === "GET" ? undefined : {});
        expect(res.status, `${method} ${url}`).toBeLessThan(500);
        answered.push(`${method} ${route.path} ${res.status}`);
      }
    }
    expect(answered.length).toBeGreaterThan(40);

    const health = await server.api("GET", "/api/health");
    process.kill(health.json.pid as number, "SIGUSR2");
    const report = await until("the server's module report", () => (existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Report) : null), 10_000);
    for (const name of Object.keys(MARKERS) as (keyof typeof MARKERS)[]) {
      const files = report.loaded[name].map((url) => new URL(url).pathname);
      expect(files, name).toHaveLength(1);
      expect(path.relative(CORE_DIR, files[0] ?? ""), `${name} is loaded from the core's folder`).not.toMatch(/^\.\.|\//);
    }
    // The data folder's server: no database or Redis client loaded, though every route answered.
    expect(report.packages[LOADED_PACKAGE]?.length, LOADED_PACKAGE).toBeGreaterThan(0);
    for (const name of BACKEND_PACKAGES) expect(report.packages[name], name).toEqual([]);
    console.error(`[loaded-once] heap used after every route once: ${report.heap_used_mb} MB, RSS ${report.rss_mb} MB`);
  });
});

/**
 * Whether the production build in `<root>/.next` is current, a lock so that two start scripts
 * never build into the same folder together, and the build itself when it is needed. Used by
 * `scripts/start.mjs` and `npm run bench`; no Next code.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CORE_BUNDLE } from "./core-bundle.mjs";

/** What the build is made from: a change to any of these makes the build stale. */
const BUILD_SOURCES = ["app", "components", "lib", "proxy.ts", "instrumentation.ts", "next.config.ts", "postcss.config.mjs", "tsconfig.json", "package.json", "package-lock.json"];

/** Newest modification time (ms) of the build's sources under `root`; tests and dot-folders do not count. */
function newestSource(root, sources = BUILD_SOURCES) {
  let newest = 0;
  const visit = (p) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) {
        if (name.startsWith(".") || name === "node_modules") continue;
        visit(path.join(p, name));
      }
    } else if (!/\.test\.tsx?$/.test(p)) {
      newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const s of sources) visit(path.join(root, s));
  return newest;
}

/**
 * Why a build is needed ("missing" or "stale"), or null when `<root>/.next` is current. A build
 * without the server's core (`next build` run alone) is missing its half.
 */
export function buildNeeded(root) {
  const built = statSync(path.join(root, ".next", "BUILD_ID"), { throwIfNoEntry: false });
  if (!built || !statSync(path.join(root, CORE_BUNDLE), { throwIfNoEntry: false })) return "missing";
  return newestSource(root) > built.mtimeMs ? "stale" : null;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/**
 * Takes the build lock (`<root>/.next-build.lock/`, holding the owner's pid). Returns a release
 * function, or null when a live process holds it. A lock whose owner is gone is taken over.
 */
export function tryBuildLock(root) {
  const lock = path.join(root, ".next-build.lock");
  const owner = path.join(lock, "pid");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(lock);
      writeFileSync(owner, String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      let pid = NaN;
      try {
        pid = Number(readFileSync(owner, "utf8"));
      } catch {
        // the owner is between mkdir and writing its pid: give it a moment
        const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
        if (age < 10_000) return null;
      }
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return null;
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return null;
}

/**
 * Builds when there is no build or it is older than the sources (`next build`, then the server's
 * core with scripts/build-core.mjs, their output on this process's). Two callers at once (tests
 * start servers together) must not build into the same folder together: the build runs under the
 * lock, and a second caller waits for it and then looks again. Resolves with the exit status of
 * `next build` or, after it, of the core's build, 0 when nothing was needed. With `toStderr`,
 * what the build prints goes to standard error (a caller whose output is data).
 */
export async function ensureBuild(root, env = process.env, { toStderr = false } = {}) {
  const nextBin = path.join(root, "node_modules", "next", "dist", "bin", "next");
  for (;;) {
    const reason = buildNeeded(root);
    if (!reason) return 0;
    const release = tryBuildLock(root);
    if (!release) {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    let status = 0;
    try {
      if (!buildNeeded(root)) return 0;
      (toStderr ? console.error : console.log)(`${reason === "missing" ? "No build found" : "The build is older than the sources"}: building Astrion Team first (this takes a minute or two)…`);
      const stdio = ["ignore", toStderr ? 2 : "inherit", "inherit"];
      status = spawnSync(process.execPath, [nextBin, "build"], { cwd: root, env, stdio }).status ?? 1;
      if (status === 0) status = spawnSync(process.execPath, [path.join(root, "scripts", "build-core.mjs")], { cwd: root, env, stdio }).status ?? 1;
    } finally {
      release();
    }
    if (status !== 0) return status;
  }
}

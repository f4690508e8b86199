import { mkdirSync, mkdtempSync, utimesSync, writeFileSync, existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildNeeded, ensureBuild, tryBuildLock } from "./build-state.mjs";
import { CORE_BUNDLE } from "./core-bundle.mjs";

function tree(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "astrion-build-state-"));
  mkdirSync(path.join(root, "lib", "store"), { recursive: true });
  writeFileSync(path.join(root, "lib", "store", "files.ts"), "export {};\n");
  writeFileSync(path.join(root, "package.json"), "{}\n");
  return root;
}
function setTime(file: string, seconds: number) {
  utimesSync(file, seconds, seconds);
}

describe("npm start's build check", () => {
  it("builds when there is no build", () => {
    expect(buildNeeded(tree())).toBe("missing");
  });

  it("builds when a source is newer than the build, and not for tests or other files", () => {
    const root = tree();
    mkdirSync(path.join(root, ".next"));
    const buildId = path.join(root, ".next", "BUILD_ID");
    writeFileSync(buildId, "x");
    // Next's half alone is not a build: the server's core is missing.
    expect(buildNeeded(root)).toBe("missing");
    mkdirSync(path.dirname(path.join(root, CORE_BUNDLE)), { recursive: true });
    writeFileSync(path.join(root, CORE_BUNDLE), "export {};\n");
    setTime(path.join(root, "lib", "store", "files.ts"), 1_000);
    setTime(path.join(root, "package.json"), 1_000);
    setTime(buildId, 2_000);
    expect(buildNeeded(root)).toBeNull();

    writeFileSync(path.join(root, "lib", "store", "files.test.ts"), "test\n");
    writeFileSync(path.join(root, "README.md"), "docs\n");
    expect(buildNeeded(root)).toBeNull();

    setTime(path.join(root, "lib", "store", "files.ts"), 3_000);
    expect(buildNeeded(root)).toBe("stale");
  });

  it("lets one builder at a time hold the lock, and takes over a dead owner's lock", () => {
    const root = tree();
    const release = tryBuildLock(root);
    expect(release).toBeTypeOf("function");
    // Held by this (live) process: a second start waits.
    expect(tryBuildLock(root)).toBeNull();
    release!();
    expect(existsSync(path.join(root, ".next-build.lock"))).toBe(false);

    // A lock whose owner died (no such pid) is taken over.
    mkdirSync(path.join(root, ".next-build.lock"));
    writeFileSync(path.join(root, ".next-build.lock", "pid"), "999999999");
    const again = tryBuildLock(root);
    expect(again).toBeTypeOf("function");
    expect(readFileSync(path.join(root, ".next-build.lock", "pid"), "utf8")).toBe(String(process.pid));
    again!();
  });

  it("runs `next build` and then the core's build only when the build is missing or stale, and passes on their failure", async () => {
    const root = tree();
    // A stand-in for Next's CLI: counts its runs, prints a line, and writes the build's id (or fails).
    const bin = path.join(root, "node_modules", "next", "dist", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, "next"),
      `const fs = require("node:fs"); fs.appendFileSync("runs", "x"); console.log("building"); if (process.env.FAIL_BUILD) process.exit(3); fs.mkdirSync(".next", { recursive: true }); fs.writeFileSync(".next/BUILD_ID", "id");`,
    );
    // And for scripts/build-core.mjs: writes the core bundle (or fails).
    mkdirSync(path.join(root, "scripts"));
    writeFileSync(
      path.join(root, "scripts", "build-core.mjs"),
      `import fs from "node:fs"; fs.appendFileSync("core-runs", "x"); if (process.env.FAIL_CORE) process.exit(4); fs.mkdirSync(".next/astrion-core", { recursive: true }); fs.writeFileSync(${JSON.stringify(CORE_BUNDLE)}, "export {};");`,
    );
    const runs = () => (existsSync(path.join(root, "runs")) ? readFileSync(path.join(root, "runs"), "utf8").length : 0);
    const coreRuns = () => (existsSync(path.join(root, "core-runs")) ? readFileSync(path.join(root, "core-runs"), "utf8").length : 0);
    expect(await ensureBuild(root, { ...process.env, FAIL_BUILD: "1" }, { toStderr: true })).toBe(3);
    expect(runs()).toBe(1);
    expect(coreRuns()).toBe(0);
    expect(await ensureBuild(root, { ...process.env, FAIL_CORE: "1" }, { toStderr: true })).toBe(4);
    expect(runs()).toBe(2);
    expect(buildNeeded(root)).toBe("missing");
    expect(existsSync(path.join(root, ".next-build.lock"))).toBe(false);
    expect(await ensureBuild(root, process.env, { toStderr: true })).toBe(0);
    expect(runs()).toBe(3);
    expect(coreRuns()).toBe(2);
    expect(buildNeeded(root)).toBeNull();
    // Current: nothing runs.
    expect(await ensureBuild(root, process.env, { toStderr: true })).toBe(0);
    expect(runs()).toBe(3);
  });
});

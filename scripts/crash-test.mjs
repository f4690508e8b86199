#!/usr/bin/env node
/**
 * `npm run crash-test -- [--instances N] [--kills K]`: random SIGKILLs of the built server while
 * teams work. One instance (the default): test/crash.test.ts on the data folder, as before. Two:
 * test/crash-instances.test.ts, two built servers on one PostgreSQL + Redis, the kills spread over
 * both (the killed one restarted), whose figures (completed calls repeated, side effects repeated,
 * takeover time median and worst, events lost by a viewer) are printed last as one JSON line.
 * vitest refuses flags it does not know, so this wrapper reads them and hands them on in the
 * environment (CRASH_KILLS, CRASH_FIGURES).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

function parse(argv) {
  const options = { instances: 1, kills: 200 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = inline ?? argv[++i];
    if (flag !== "--instances" && flag !== "--kills") throw new Error(`unknown option ${argv[i]} (use --instances N, --kills K)`);
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a whole number of at least 1, not ${value}`);
    options[flag.slice(2)] = n;
  }
  if (options.instances > 2) throw new Error("--instances is 1 (the data folder) or 2 (PostgreSQL + Redis)");
  return options;
}

let options;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  console.error(`crash-test: ${error.message}`);
  process.exit(2);
}
const file = options.instances === 1 ? "test/crash.test.ts" : "test/crash-instances.test.ts";
const dir = mkdtempSync(path.join(os.tmpdir(), "astrion-crash-figures-"));
const figures = path.join(dir, "figures.json");
const vitest = path.join(process.cwd(), "node_modules", "vitest", "vitest.mjs");
const result = spawnSync(process.execPath, [vitest, "run", "--project", "integration", file], {
  stdio: "inherit",
  env: { ...process.env, CRASH_KILLS: String(options.kills), CRASH_FIGURES: figures },
});
try {
  // The figures, last and on one line, so a caller can take them with `tail -1`.
  console.log(readFileSync(figures, "utf8").trim());
} catch {
  if (options.instances > 1) console.error("crash-test: the test wrote no figures");
}
rmSync(dir, { recursive: true, force: true });
process.exit(result.status ?? 1);

/**
 * Projects for the offline team's tests: generated trees of any size with realistic names and
 * content (a service with domains, each with modules, tests and docs), and real files from this
 * repository or its node_modules. Deterministic for a seed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { rng } from "./rng";

const DOMAINS = ["billing", "invoices", "payments", "accounts", "auth", "sessions", "orders", "catalog", "search", "shipping", "notifications", "reports", "inventory", "users", "audit", "webhooks"];
const PARTS = ["service", "repository", "controller", "validator", "mapper", "client", "cache", "queue", "handler", "policy", "schema", "events"];
const VERBS = ["create", "update", "find", "list", "remove", "validate", "apply", "compute", "sync", "retry", "export", "import"];
const NOUNS = ["Invoice", "Payment", "Account", "Session", "Order", "Item", "Refund", "Customer", "Token", "Report", "Shipment", "Webhook"];


function moduleText(domain: string, part: string, rand: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const noun = pick(NOUNS);
  const lines = [`/** The ${domain} ${part}: ${pick(VERBS)}s and checks ${noun.toLowerCase()}s for the ${domain} domain. */`, `import { logger } from "../shared/logger";`, ""];
  const fns = 2 + Math.floor(rand() * 3);
  for (let i = 0; i < fns; i++) {
    const fn = `${pick(VERBS)}${noun}${i === 0 ? "" : i}`;
    lines.push(`/** ${fn}: part of the ${domain} ${part}. */`, `export async function ${fn}(input: { id: string; amount?: number }): Promise<boolean> {`);
    if (rand() < 0.25) lines.push(`  // TODO: handle a missing ${noun.toLowerCase()} id in ${fn}`);
    lines.push(`  if (!input.id) throw new Error("${fn}: id is required");`, `  logger.info("${domain}.${fn}", input.id);`, `  return (input.amount ?? 0) >= 0;`, "}", "");
  }
  return lines.join("\n");
}

function testText(domain: string, part: string): string {
  return [`import { describe, expect, it } from "vitest";`, `import * as mod from "../../src/${domain}/${part}";`, "", `describe("${domain} ${part}", () => {`, `  it("exports its functions", () => {`, "    expect(Object.keys(mod).length).toBeGreaterThan(0);", "  });", "});", ""].join("\n");
}

/**
 * A generated service of about `files` files: `src/<domain>/<part>.ts` modules (doc comments,
 * exported functions, some TODOs), `test/<domain>/<part>.test.ts`, `docs/<domain>.md`, a README,
 * a package.json with scripts and a vitest config. Paths keep their domains in folders, so a
 * goal can name one (`src/billing`).
 */
export function generateProject(files: number, seed = 1): Record<string, string> {
  const rand = rng(seed);
  const out: Record<string, string> = {
    "README.md": [
      "# Ledger Service",
      "",
      "A service that bills customers, takes payments and issues invoices. It keeps every change in an append-only journal and never loses an acknowledged payment.",
      "",
      "## Install",
      "",
      "npm install",
      "",
      "## Usage",
      "",
      "npm start",
      "",
      "## Testing",
      "",
      "npm test runs the unit tests under test/ with vitest.",
      "",
    ].join("\n"),
    "package.json": JSON.stringify({ name: "ledger-service", version: "2.3.0", description: "Billing, payments and invoices", scripts: { start: "node dist/index.js", build: "tsc", test: "vitest run", lint: "eslint ." }, devDependencies: { vitest: "^4.0.0", typescript: "^5.9.0" } }, null, 2),
    "vitest.config.ts": 'import { defineConfig } from "vitest/config";\nexport default defineConfig({ test: { include: ["test/**/*.test.ts"] } });\n',
    "src/index.ts": '/** Entry point: starts the HTTP server and the workers. */\nexport function main(): void {\n  // TODO: read the port from the environment\n}\n',
    "src/shared/logger.ts": "/** A tiny structured logger. */\nexport const logger = { info: (event: string, id: string) => console.log(event, id) };\n",
  };
  let n = Object.keys(out).length;
  for (let round = 0; n < files; round++) {
    for (const domain of DOMAINS) {
      for (const part of PARTS) {
        if (n >= files) break;
        const name = round === 0 ? part : `${part}-${round}`;
        const dir = round < 4 ? `src/${domain}` : `src/${domain}/v${Math.floor(round / 4)}`;
        out[`${dir}/${name}.ts`] = moduleText(domain, part, rand);
        n++;
        if (n < files && rand() < 0.5) {
          out[`test/${domain}/${name}.test.ts`] = testText(domain, name);
          n++;
        }
      }
      if (n < files && round === 0) {
        out[`docs/${domain}.md`] = `# ${domain[0]!.toUpperCase()}${domain.slice(1)}\n\nHow the ${domain} domain works, its modules and its tests.\n`;
        n++;
      }
    }
  }
  return out;
}

/** Writes `files` (project-relative paths) into `dir`. */
export function writeProject(dir: string, files: Readonly<Record<string, string>>): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/** The repository's root (this file is test/helpers/projects.ts). */
const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");

/**
 * Real files of this repository, about `files` of them: the README, package.json and the tracked
 * files under `folders` (in order), as git lists them.
 */
export function repoProject(files: number, folders: readonly string[] = ["lib/store", "lib/protocol", "lib/workspace", "lib/context", "lib/runtime", "lib/models", "app", "test"]): Record<string, string> {
  const tracked = execFileSync("git", ["ls-files", "-z", "--", ...folders], { cwd: REPO_ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
  const out: Record<string, string> = {};
  for (const rel of ["README.md", "package.json", ...tracked]) {
    if (Object.keys(out).length >= files) break;
    out[rel] = readFileSync(path.join(REPO_ROOT, rel), "utf8");
  }
  return out;
}

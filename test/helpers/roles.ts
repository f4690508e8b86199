/**
 * Role files for tests of the engine that are not about approval: the product roles, each with
 * `tool_policy: { write_file: allow }`, so an agent's write runs at once as it did before writes
 * asked a person first (issue 10). Approval itself is tested in test/run-command.test.ts.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./server";

/** The policy line those roles carry. */
const ALLOW_WRITES = "tool_policy: { write_file: allow }";

/** A role file's text with {@link ALLOW_WRITES} added to its frontmatter. */
function allowingWrites(roleText: string): string {
  if (!roleText.startsWith("---\n")) throw new Error("a role file starts with its frontmatter");
  return `---\n${ALLOW_WRITES}\n${roleText.slice(4)}`;
}

/** Copies the product roles (`agents/*.md`) into `<home>/agents`, each allowing writes. */
export function seedRolesAllowingWrites(home: string): void {
  const source = path.join(REPO_ROOT, "agents");
  mkdirSync(path.join(home, "agents"), { recursive: true });
  for (const file of readdirSync(source).filter((f) => f.endsWith(".md"))) {
    writeFileSync(path.join(home, "agents", file), allowingWrites(readFileSync(path.join(source, file), "utf8")));
  }
}

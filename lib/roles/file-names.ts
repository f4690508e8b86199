/**
 * Role files whose name is not `<valid id>.md` (`powershell-5.1-expert.md`, `Power Shell.md`,
 * `Reviewer.MD`): they load and are listed, but nothing can address them by id, so the library
 * offers a rename to a free valid id. Pure.
 */
import { ROLE_ID_PATTERN } from "./schema";

/** A file the roles folder lists: any `.md` name (any case) that is not hidden. */
export const ROLE_FILE = /^[^.].*\.md$/i;

/** `ui-operator.md` → `ui-operator`; `Power Shell 5.1.MD` → `Power Shell 5.1`. */
export function stemOf(fileName: string): string {
  return fileName.replace(/\.md$/i, "");
}

/** True when `fileName` is exactly `<id>.md` for a valid id, so the id addresses it. */
export function isIdFileName(fileName: string): boolean {
  const stem = stemOf(fileName);
  return ROLE_ID_PATTERN.test(stem) && fileName === `${stem}.md`;
}

/**
 * Turns any text into a role id: ASCII letters and digits, other runs become `-`, lower case.
 * `Power Shell 5.1` → `power-shell-5-1`; text with nothing usable gives `role`.
 */
export function roleIdFromText(text: string): string {
  const ascii = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  const id = ascii
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, 90)
    .replace(/[-_]+$/, "")
    .toLowerCase();
  return id || "role";
}

/**
 * The id to suggest for a misnamed file: its stem made an id, with `-2`, `-3`… when that id is
 * taken (`taken` holds the ids in use, compared without case so the rename also works on a
 * case-insensitive disk).
 */
export function suggestRoleId(fileName: string, taken: Iterable<string>): string {
  const used = new Set([...taken].map((t) => t.toLowerCase()));
  const base = roleIdFromText(stemOf(fileName));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

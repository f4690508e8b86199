/**
 * Rules of a person's changes to an entry (the Memory page, the API). Pure.
 */
import { ValidationError } from "@/lib/contracts/errors";
import type { MemoryEntry, MemoryLevel, PatchMemoryBody } from "./schema";

/** A person's entry must be readable by someone: a project entry names its project, a restricted one a role. */
export function checkLevel(level: MemoryLevel, project: string | null, grant: readonly string[]): void {
  if (level === "project" && project === null) {
    throw new ValidationError("A project entry needs a project folder (project_path).", [{ path: "project_path", message: "required for level project" }]);
  }
  if (level === "restricted" && grant.length === 0) {
    throw new ValidationError("A restricted entry needs at least one role in its grant.", [{ path: "grant", message: "required for level restricted" }]);
  }
}

/**
 * The redaction spans after an edit: those of the fields not edited are kept as they were (their
 * stored text is unchanged), those of the edited fields come from the new pass.
 */
export function editedSpans(old: MemoryEntry, fresh: MemoryEntry["redactions"], patch: PatchMemoryBody): MemoryEntry["redactions"] {
  const edited = (field: "statement" | "subject") => (field === "statement" ? patch.statement !== undefined : patch.subject !== undefined);
  return [...old.redactions.filter((r) => !edited(r.field)), ...fresh.filter((r) => edited(r.field))];
}

/**
 * Who may read a memory entry (seed 003 §5.4). Pure; every path that hands entries to a model or
 * an agent filters through {@link canRead} before anything is ranked out.
 */
import type { MemoryEntry, MemoryReader } from "./schema";

/**
 * True when `reader` may read `entry`:
 * - `public`: everyone;
 * - `project`: a reader on the same project folder (both set, and equal);
 * - `restricted`: a reader whose role is named in the entry's grant, and, when the entry belongs
 *   to a project, on that same project.
 * Anything else (an unknown level, a reader without a role for a restricted entry) is refused.
 */
export function canRead(entry: Pick<MemoryEntry, "level" | "project_path" | "grant">, reader: MemoryReader): boolean {
  switch (entry.level) {
    case "public":
      return true;
    case "project":
      return samePath(entry.project_path, reader.project_path);
    case "restricted":
      if (reader.role_id === null || !entry.grant.includes(reader.role_id)) return false;
      return entry.project_path === null || samePath(entry.project_path, reader.project_path);
    default:
      return false;
  }
}

function samePath(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a === b;
}

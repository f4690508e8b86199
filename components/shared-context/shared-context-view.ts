/** Pure helpers of the shared-context panel. */
import type { AuthorRole, Resolution } from "@/lib/shared-context/schema";

/**
 * Who wrote a value, as shown: a person's writes carry the literal author `person`, shown in the
 * UI's language (`personLabel`); agents and the leader keep their display names.
 */
export function authorLabel(author: string, role: AuthorRole | null, personLabel: string): string {
  return role === "person" && author === "person" ? personLabel : author;
}

/** The latest `limit` resolutions, newest first (the file keeps them oldest first). */
export function recentResolutions(history: readonly Resolution[], limit: number): Resolution[] {
  return limit <= 0 ? [] : history.slice(-limit).reverse();
}

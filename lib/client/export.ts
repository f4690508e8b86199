/**
 * Export and import from the browser: download links for one conversation, the bulk export
 * (a POST whose answer is a zip, saved through an object URL) and the import of a zip file.
 */
import { BulkExportBodySchema, ImportConflictDetailsSchema, ImportResultSchema, type ExportFormat, type ImportMode, type ImportResult } from "@/lib/export/schema";
import { ApiError, apiRaw, bodyOf } from "./api";

/** The URL that downloads one conversation as `format` (its answer is an attachment). */
export function exportUrl(id: string, format: ExportFormat): string {
  return `/api/conversations/${encodeURIComponent(id)}/export?format=${format}`;
}

/** The file name the server gave an attachment, or `fallback`. */
function attachmentName(res: Response, fallback: string): string {
  const match = /filename="([A-Za-z0-9._-]+)"/.exec(res.headers.get("content-disposition") ?? "");
  return match?.[1] ?? fallback;
}

/** Saves `blob` as a download named `name`. */
function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Exports several conversations as one zip and saves it. */
export async function bulkExport(ids: string[]): Promise<void> {
  const body = bodyOf(BulkExportBodySchema, { ids });
  const res = await apiRaw("/api/conversations/export", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  saveBlob(await res.blob(), attachmentName(res, "astrion-conversations.zip"));
}

/** Imports a zip file; a taken id fails with an ApiError whose {@link takenIds} lists it. */
export async function importConversations(file: Blob, mode: ImportMode = "same_id"): Promise<ImportResult> {
  const query = mode === "same_id" ? "" : `?mode=${mode}${mode === "overwrite" ? "&confirm=true" : ""}`;
  const res = await apiRaw(`/api/conversations/import${query}`, { method: "POST", headers: { "content-type": "application/zip", accept: "application/json" }, body: file });
  const parsed = ImportResultSchema.safeParse(await res.json());
  if (!parsed.success) throw new ApiError(res.status, "bad_response", "Unexpected answer from the import");
  return parsed.data;
}

/** The ids an import found taken (a 409), or null for any other error. */
export function takenIds(error: unknown): { taken: string[]; running: string[] } | null {
  if (!(error instanceof ApiError) || !error.isConflict) return null;
  const details = ImportConflictDetailsSchema.safeParse(error.details);
  return details.success ? { taken: details.data.taken, running: details.data.running } : null;
}

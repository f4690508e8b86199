import "server-only";
/**
 * Export and import through the store and the runtime (the I/O side of lib/export).
 *
 * Consistency of an export: each conversation is held (the engine's `withConversation`), opened by
 * the store, checkpointed, and its files are read once each while its writes wait
 * (ConversationCatalog.snapshotFolder → LiveConversation.frozen). So a conversation that is running
 * is exported as of one moment: every message, status and timeline line that had been shown (an
 * acknowledged step) is in it, and no file is torn. Text still streaming from a model is not: it
 * is saved, and exported, once its step completes. Both the Markdown and the zip come from the
 * same bytes.
 */
import { ConflictError, NotFoundError, ValidationError } from "@/lib/contracts/errors";
import type { Engine } from "@/lib/runtime";
import { toPythonJsonBytes, type ConversationCatalog } from "@/lib/store";
import { compactTimestamp } from "@/lib/store/time";
import { downloadName, exportEntries, exportManifest, readImportArchive, zipStream } from "./archive";
import { classifyPath, parseConversationFolder, rekeyFiles, type ConversationFolder } from "./bundle";
import { copyBase, copyTitle, type CopyTitleFormat } from "./copy-title";
import { renderConversationMarkdown } from "./markdown";
import { EXPORT_LIMITS, type ImportedConversation, type ImportMode } from "./schema";

/** What export and import work with: the store, the engine (to hold, stop and resume runs) and the app's version. */
export interface ExportDeps {
  readonly store: ConversationCatalog;
  readonly engine: Pick<Engine, "withConversation" | "forgetRun" | "isRunWorking" | "resumeRun">;
  readonly version: string;
}

/** A file to download. */
export interface Download<B> {
  /** A file name of `[A-Za-z0-9._-]` only, safe in Content-Disposition. */
  filename: string;
  contentType: string;
  body: B;
}

async function snapshot(app: ExportDeps, id: string, budget: { bytes: number }): Promise<ConversationFolder> {
  await app.store.get(id);
  const files = await app.engine.withConversation(id, () => app.store.snapshotFolder(id, (rel) => classifyPath(rel) !== null, budget));
  return parseConversationFolder(id, files, { strict: false });
}

/** The Markdown report of one conversation. */
export async function exportMarkdown(app: ExportDeps, id: string): Promise<Download<string>> {
  const folder = await snapshot(app, id, { bytes: EXPORT_LIMITS.maxTotalBytes });
  const body = renderConversationMarkdown(folder, { now: new Date(), appVersion: app.version });
  return { filename: downloadName(id, folder.metadata.title, "md"), contentType: "text/markdown; charset=utf-8", body };
}

/**
 * A zip of one or more conversation folders (`<id>/…`) with the manifest, streamed. Every
 * conversation must exist (NotFoundError names the first that does not); together they may hold at
 * most {@link EXPORT_LIMITS}.maxTotalBytes.
 */
export async function exportZip(app: ExportDeps, ids: string[]): Promise<Download<ReadableStream<Uint8Array>>> {
  for (const id of ids) await app.store.get(id);
  const budget = { bytes: EXPORT_LIMITS.maxTotalBytes };
  const folders: ConversationFolder[] = [];
  for (const id of ids) folders.push(await snapshot(app, id, budget));
  const entries = exportEntries(exportManifest(ids, app.version), folders);
  const filename = ids.length === 1 ? downloadName(ids[0]!, folders[0]!.metadata.title, "zip") : `astrion-conversations-${compactTimestamp()}.zip`;
  return { filename, contentType: "application/zip", body: zipStream(entries) };
}

async function exists(app: ExportDeps, id: string): Promise<boolean> {
  try {
    await app.store.get(id);
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    return true; // there, but broken: taken all the same
  }
}

/**
 * Imports a zip made by {@link exportZip} (or a bulk export). The whole zip is checked first
 * (lib/export/archive.ts); nothing is written unless every conversation in it is valid and the
 * mode settles every id that is taken:
 * - `same_id` (default): a taken id answers 409 (`details.taken`, `details.modes`), nothing written;
 * - `new_id`: a conversation whose id is taken is imported as a copy under a new id (every
 *   occurrence of its old id rewritten) and a title no other conversation has, written with
 *   `copyFormat` (the importing person's language: ./copy-title.ts); the others keep their ids;
 * - `overwrite` (with `confirm`): a taken one is replaced, unless it is working (409, nothing written).
 * Conversations are then written one by one; each is listed, and an active one resumes as at a
 * restart (its waiting agents keep waiting, its running ones continue).
 */
export async function importZip(app: ExportDeps, data: Uint8Array, mode: ImportMode, copyFormat: CopyTitleFormat): Promise<ImportedConversation[]> {
  const archive = await readImportArchive(data);
  const taken: string[] = [];
  for (const c of archive.conversations) if (await exists(app, c.id)) taken.push(c.id);
  const running = taken.filter((id) => app.engine.isRunWorking(id));
  if (taken.length && mode === "same_id") {
    throw new ConflictError(
      `${taken.length === 1 ? `Conversation ${taken[0]} exists` : `Conversations ${taken.join(", ")} exist`} already. Import as a new copy (mode=new_id) or replace (mode=overwrite&confirm=true).`,
      { taken, running, modes: ["new_id", "overwrite"] },
    );
  }
  if (mode === "overwrite" && running.length) {
    throw new ConflictError(`Conversation ${running.join(", ")} is running; stop it before replacing it.`, { taken, running, modes: ["new_id"] });
  }
  // Every conversation's project folder is checked before anything is written (all or nothing).
  for (const c of archive.conversations) {
    try {
      await app.store.checkProjectFolder(c.metadata.project_path);
    } catch (error) {
      if (error instanceof ValidationError) throw new ValidationError(`${c.id}: its project folder cannot be used here: ${error.message}`, error.details);
      throw error;
    }
  }
  const imported: ImportedConversation[] = [];
  // Titles given to this zip's copies so far: two copies of one title differ too.
  const copyTitles = new Set<string>();
  for (const c of archive.conversations) {
    const isTaken = taken.includes(c.id);
    if (isTaken && mode === "overwrite") await app.engine.forgetRun(c.id);
    const how = !isTaken ? "create" : mode === "new_id" ? "new_id" : "replace";
    let title: string | undefined;
    if (how === "new_id") {
      title = copyTitle(c.metadata.title, copyFormat, new Set([...(await titlesLike(app, copyBase(c.metadata.title.trim(), copyFormat))), ...copyTitles]));
      copyTitles.add(title);
    }
    const build = (to: string) => {
      if (to === c.id) return c.files;
      const files = retitled(rekeyFiles(c.files, c.id, to), title);
      parseConversationFolder(to, files, { strict: true });
      return files;
    };
    const meta = await app.store.installConversation(c.id, how, build);
    // As at boot: a conversation that cannot resume (its model is not registered here, say) is
    // imported all the same, and says why when it is used.
    if (meta.status === "active") await app.engine.resumeRun(meta.id).catch((error: unknown) => console.error(`[astrion] imported ${meta.id} could not resume:`, (error as Error).message));
    imported.push({ source_id: c.id, id: meta.id, title: meta.title, outcome: how === "create" ? "created" : how === "new_id" ? "copied" : "replaced" });
  }
  return imported;
}

/** The titles of every conversation whose title (or project folder) holds `text`, any status. */
async function titlesLike(app: ExportDeps, text: string): Promise<Set<string>> {
  const titles = new Set<string>();
  const q = text.slice(0, 200) || undefined;
  for (let offset = 0; ; offset += 100) {
    const page = await app.store.list({ q, status: "all", offset, limit: 100 });
    for (const item of page.items) titles.add(item.title);
    if (page.items.length === 0 || offset + page.items.length >= page.total) return titles;
  }
}

/** The files with the conversation's `title` (in metadata.json and messages.json) set to `title`, when one is given. */
function retitled(files: Map<string, Uint8Array>, title: string | undefined): Map<string, Uint8Array> {
  if (title === undefined) return files;
  for (const name of ["metadata.json", "messages.json"]) {
    const data = files.get(name);
    if (!data) continue;
    const value = JSON.parse(new TextDecoder().decode(data).replace(/^\uFEFF/, "")) as Record<string, unknown>;
    files.set(name, toPythonJsonBytes({ ...value, title }));
  }
  return files;
}

/** The HTTP answer of a download: `Content-Disposition: attachment` with its safe file name. */
export function attachment(download: Download<string | ReadableStream<Uint8Array>>): Response {
  return new Response(download.body, {
    status: 200,
    headers: {
      "content-type": download.contentType,
      "content-disposition": `attachment; filename="${download.filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

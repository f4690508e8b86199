/**
 * The export zip: `astrion-export.json` (the manifest) and one `<conv_id>/…` folder per
 * conversation, written with fflate as a stream; and the reverse, a zip from outside turned into
 * checked conversation folders (all of them valid, or the import is refused). Pure (no I/O).
 */
import { Zip, ZipDeflate } from "fflate";
import { ValidationError } from "@/lib/contracts/errors";
import { MAX_JSON_DEPTH, parseJsonWithin } from "@/lib/input-limits";
import { conversationOfEntry, parseConversationFolder, type ConversationFolder } from "./bundle";
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, ExportManifestSchema, IMPORT_LIMITS, MANIFEST_NAME, type ExportManifest } from "./schema";
import { readZip, type ZipFile } from "./zip-read";

/** Input bytes handed to the compressor per pull of the output stream (bounds the work per step). */
const WRITE_SLICE = 64 * 1024;

/**
 * The download name of a conversation: `<id>-<words-of-the-title>.<ext>`, of ASCII letters, digits
 * and `-` only (at most 60 from the title), so it is safe in `Content-Disposition` and on any disk.
 */
export function downloadName(id: string, title: string, ext: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "")
    .toLowerCase();
  return `${id}${slug ? `-${slug}` : ""}.${ext}`;
}

/** The manifest of an export of `ids`. */
export function exportManifest(ids: string[], appVersion: string, now = new Date()): ExportManifest {
  return { format: EXPORT_FORMAT, format_version: EXPORT_FORMAT_VERSION, app_version: appVersion, created_at: now.toISOString(), conversation_ids: ids };
}

/** The entries of an export zip: the manifest first, then every file of every folder under `<id>/`. */
export function exportEntries(manifest: ExportManifest, folders: Array<{ id: string; files: Map<string, Uint8Array> }>): ZipFile[] {
  const entries: ZipFile[] = [{ name: MANIFEST_NAME, data: new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`) }];
  for (const folder of folders) {
    for (const rel of [...folder.files.keys()].sort()) entries.push({ name: `${folder.id}/${rel}`, data: folder.files.get(rel)! });
  }
  return entries;
}

/**
 * A zip of `entries` as a byte stream, compressed a slice at a time as the reader pulls, so the
 * event loop is never held for a whole archive and a slow reader slows the compressor.
 */
export function zipStream(entries: ZipFile[], mtime = new Date()): ReadableStream<Uint8Array> {
  let zip: Zip;
  let file = 0;
  let offset = 0;
  let current: ZipDeflate | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      zip = new Zip((error, chunk, final) => {
        if (error) return controller.error(error);
        if (chunk.length) controller.enqueue(chunk);
        if (final) controller.close();
      });
      if (entries.length === 0) zip.end();
    },
    pull() {
      const entry = entries[file];
      if (!entry) return;
      if (!current) {
        current = new ZipDeflate(entry.name, { level: 6 });
        current.mtime = mtime;
        zip.add(current);
      }
      const end = Math.min(entry.data.length, offset + WRITE_SLICE);
      current.push(entry.data.subarray(offset, end), end === entry.data.length);
      offset = end;
      if (end === entry.data.length) {
        current = null;
        offset = 0;
        file++;
        if (file === entries.length) zip.end();
      }
    },
    cancel() {
      zip?.terminate();
    },
  });
}

/** What an import zip holds, every part checked. */
export interface ImportArchive {
  manifest: ExportManifest;
  /** In the manifest's order. */
  conversations: ConversationFolder[];
}

/**
 * Reads an import zip (hostile input): the archive is checked by {@link readZip}, then its layout:
 * the manifest at the root (nothing else there), folders named by conversation ids that are
 * exactly the manifest's `conversation_ids`, directory entries only along the layout, and each
 * folder checked strictly by {@link parseConversationFolder}. Any fault refuses the whole zip.
 * @throws ValidationError (400) naming the entry at fault; AstrionError `payload_too_large` past a limit.
 */
export async function readImportArchive(data: Uint8Array): Promise<ImportArchive> {
  const { files, directories } = await readZip(data, IMPORT_LIMITS);
  const refuse = (entry: string, message: string): never => {
    throw new ValidationError(`The archive is not accepted: ${entry}: ${message}`, [{ path: entry, message }]);
  };
  let manifest: ExportManifest | null = null;
  const folders = new Map<string, Map<string, Uint8Array>>();
  for (const { name, data: bytes } of files) {
    if (name === MANIFEST_NAME) {
      let text = "";
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        refuse(name, "is not UTF-8 text");
      }
      const parsed = parseJsonWithin(text, Number.POSITIVE_INFINITY);
      if (!parsed.ok) refuse(name, parsed.reason === "too_deep" ? `nests deeper than ${MAX_JSON_DEPTH} levels` : "is not valid JSON");
      const result = ExportManifestSchema.safeParse(parsed.ok ? parsed.value : null);
      if (!result.success) refuse(name, `is not an Astrion export manifest (${result.error.issues[0]?.message ?? "wrong shape"})`);
      manifest = result.data ?? null;
      continue;
    }
    const where = conversationOfEntry(name);
    if (!where) refuse(name, "is outside any conversation folder");
    const folder = folders.get(where!.id) ?? new Map<string, Uint8Array>();
    folders.set(where!.id, folder);
    folder.set(where!.rel, bytes);
  }
  for (const dir of directories) {
    const where = conversationOfEntry(dir);
    const rel = where?.rel ?? "";
    if (!where || !(rel === "" || rel === "agents/" || /^agents\/[1-9]\d{0,15}\/$/.test(rel))) refuse(dir, "is not a folder of the layout");
  }
  if (!manifest) return refuse(MANIFEST_NAME, "is missing: this is not an Astrion export");
  const listed = new Set(manifest.conversation_ids);
  if (listed.size !== manifest.conversation_ids.length) refuse(MANIFEST_NAME, "lists a conversation twice");
  for (const id of folders.keys()) if (!listed.has(id)) refuse(`${id}/`, "is not listed in the manifest");
  for (const id of manifest.conversation_ids) if (!folders.has(id)) refuse(`${id}/`, "is listed in the manifest but missing");
  const conversations: ConversationFolder[] = [];
  for (const id of manifest.conversation_ids) {
    conversations.push(parseConversationFolder(id, folders.get(id)!, { strict: true }));
    // One conversation's files are parsed at a time; others' requests run in between.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { manifest, conversations };
}

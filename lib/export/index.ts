import "server-only";
/**
 * Public face of conversation export and import (issue 9): a Markdown report of a conversation, a
 * zip of its folder (one or several conversations), and the import of such a zip, checked as the
 * hostile input it is. The pure parts (schemas, zip reading and writing, folder checks, Markdown)
 * are importable alone: `@/lib/export/schema` by the browser, the others by tests.
 */
export * from "./schema";
export { readZip, unsafeEntryName, crc32, type ZipContents, type ZipFile, type ZipLimits } from "./zip-read";
export { classifyPath, parseConversationFolder, rekeyFiles, type ConversationFolder } from "./bundle";
export { downloadName, exportEntries, exportManifest, readImportArchive, zipStream, type ImportArchive } from "./archive";
export { renderConversationMarkdown, type RenderOptions } from "./markdown";
export { attachment, exportMarkdown, exportZip, importZip, type Download } from "./service";

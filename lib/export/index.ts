import "server-only";
/**
 * Public face of conversation export and import (issue 9): a Markdown report of a conversation, a
 * zip of its folder (one or several conversations), and the import of such a zip, checked as the
 * hostile input it is. The pure parts (schemas, zip reading and writing, folder checks, Markdown)
 * are importable alone: `@/lib/export/schema` by the browser, the others by tests.
 */
export * from "./schema";
export { attachment, exportMarkdown, exportZip, importZip } from "./service";

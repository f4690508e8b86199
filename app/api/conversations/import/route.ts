import { IMPORT_LIMITS, ImportQuerySchema, ImportResultSchema } from "@/lib/export/schema";
import { answer, parseWith, queryOf, readBytes, route } from "@/lib/http";
import { getT } from "@/lib/i18n/server";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Imports an export zip, sent as the raw body (`content-type: application/zip`). `mode` says what
 * to do with an id that is taken (`new_id`, or `overwrite` with `confirm=true`); without one a
 * taken id answers 409 and nothing is written. A copy (`new_id`) gets a title of its own,
 * "<title> (imported copy)" in the language of the request (cookie, else Accept-Language).
 */
export const POST = route(async (request) => {
  const query = parseWith(ImportQuerySchema, queryOf(request), "Bad query");
  const body = await readBytes(request, IMPORT_LIMITS.maxZipBytes);
  const { importZip } = await serverCore();
  const app = await getApp();
  // A copy's title is marked in the importing person's language (lib/export/copy-title.ts).
  const t = await getT();
  const copyFormat = { first: t("import.copyTitle"), nth: t("import.copyTitle.n") };
  const imported = await importZip(app, new Uint8Array(body.buffer, body.byteOffset, body.byteLength), query.mode, copyFormat);
  return answer(ImportResultSchema, { imported }, { status: 201 });
});

import { answer, authorOf, readBody, route } from "@/lib/http";
import { CreateModelEntryBodySchema, ModelSettingsSchema } from "@/lib/model-settings/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** models.json as Settings → Models edits it: entries (a key's source only), default, etag. */
export const GET = route(async () => {
  const { readModelSettings } = await serverCore();
  return answer(ModelSettingsSchema, await readModelSettings(await getApp()));
});

/** Adds an entry (409 when its key is taken or models.json changed since `etag`); a typed key goes to the key store. */
export const POST = route(async (request) => {
  const body = await readBody(request, CreateModelEntryBodySchema);
  const { putModelEntry } = await serverCore();
  const settings = await putModelEntry(await getApp(), { ...body, create: true });
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "models.json");
  return answer(ModelSettingsSchema, settings, { status: 201 });
});

import { ModelKeySchema } from "@/lib/contracts/http";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { DeleteModelEntryBodySchema, ModelSettingsSchema, UpdateModelEntryBodySchema } from "@/lib/model-settings/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { key: string };

/** Replaces an entry's form fields where it stands (its other keys kept); a stale `etag` is 409. */
export const PUT = route<Params>(async (request, params) => {
  const key = parseWith(ModelKeySchema, params.key, "Bad model key");
  const body = await readBody(request, UpdateModelEntryBodySchema);
  const { putModelEntry } = await serverCore();
  const settings = await putModelEntry(await getApp(), { key, ...body, create: false });
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "models.json");
  return answer(ModelSettingsSchema, settings);
});

/** Removes an entry and its stored key; refused while the default, a fallback, an alias or a side job names it. */
export const DELETE = route<Params>(async (request, params) => {
  const key = parseWith(ModelKeySchema, params.key, "Bad model key");
  const body = await readBody(request, DeleteModelEntryBodySchema);
  const { deleteModelEntry } = await serverCore();
  const settings = await deleteModelEntry(await getApp(), key, body.etag);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "models.json");
  return answer(ModelSettingsSchema, settings);
});

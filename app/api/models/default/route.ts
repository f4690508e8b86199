import { answer, authorOf, readBody, route } from "@/lib/http";
import { ModelSettingsSchema, SetDefaultModelBodySchema } from "@/lib/model-settings/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Makes a model the default of models.json; a stale `etag` is 409. */
export const PUT = route(async (request) => {
  const body = await readBody(request, SetDefaultModelBodySchema);
  const { setDefaultModel } = await serverCore();
  const settings = await setDefaultModel(await getApp(), body.key, body.etag);
  await (await getApp()).activity.record(authorOf(request), "settings_changed", "models.json");
  return answer(ModelSettingsSchema, settings);
});

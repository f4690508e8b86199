import { answer, readBody, route } from "@/lib/http";
import { ModelSettingsSchema, SetDefaultModelBodySchema } from "@/lib/model-settings/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Makes a model the default of models.json; a stale `etag` is 409. */
export const PUT = route(async (request) => {
  const body = await readBody(request, SetDefaultModelBodySchema);
  const { setDefaultModel } = await serverCore();
  return answer(ModelSettingsSchema, await setDefaultModel(await getApp(), body.key, body.etag));
});

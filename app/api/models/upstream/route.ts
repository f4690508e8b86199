import { answer, readBody, route } from "@/lib/http";
import { UpstreamModelsBodySchema, UpstreamModelsSchema } from "@/lib/model-settings/schema";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The models a server lists at `base_url` + `/models` (asked with the form's key), or why there are none. */
export const POST = route(async (request) => {
  const body = await readBody(request, UpstreamModelsBodySchema);
  const { listUpstreamModels } = await serverCore();
  return answer(UpstreamModelsSchema, await listUpstreamModels(await getApp(), body));
});

import { answer, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ModelListSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The registered models as the browser may see them (a key's source, never a key), each with its
 * provider profile and why (named, or guessed from the base URL or the server's `/v1/models`), and
 * the model aliases roles may use.
 */
export const GET = route(async () => {
  const { publicModelList } = await serverCore();
  return answer(ModelListSchema, await publicModelList(await getApp()));
});

import { answer, route } from "@/lib/http";
import { DEFAULT_ALIASES, loadRegistry, publicModels } from "@/lib/models";
import { getApp } from "@/lib/server/app";
import { ModelListSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The registered models as the browser may see them (never keys), and the model aliases roles may use. */
export const GET = route(async () => {
  const app = await getApp();
  const registry = await loadRegistry(app.root);
  return answer(ModelListSchema, { models: publicModels(registry), default_key: registry.default, aliases: { ...DEFAULT_ALIASES, ...registry.aliases } });
});

import { answer, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ModelListSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * The registered models as the browser may see them (never keys), each with its provider profile
 * and why (named, or guessed from the base URL or the server's `/v1/models`), and the model
 * aliases roles may use.
 */
export const GET = route(async () => {
  const { DEFAULT_ALIASES, loadRegistry, publicModels } = await serverCore();
  const app = await getApp();
  const registry = await loadRegistry(app.root);
  const guesses = await app.models.providerGuesses(registry);
  return answer(ModelListSchema, { models: publicModels(registry, guesses), default_key: registry.default, aliases: { ...DEFAULT_ALIASES, ...registry.aliases } });
});

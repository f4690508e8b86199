import { CreateConversationBodySchema, ListConversationsQuerySchema, ConversationListSchema, CreatedConversationResponseSchema } from "@/lib/contracts/http";
import { ValidationError } from "@/lib/contracts/errors";
import { enforceRateLimit } from "@/lib/governance/rate-limit";
import { answer, parseWith, queryOf, readBody, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The conversation index: newest first, paged, `q` over titles, `status` filter. */
export const GET = route(async (request) => {
  const query = parseWith(ListConversationsQuerySchema, queryOf(request), "Bad query");
  const app = await getApp();
  return answer(ConversationListSchema, await app.store.list(query));
});

/**
 * Starts a new conversation; answers its metadata. With a `goal`, the goal is the person's first
 * message to the Team Leader, and the team starts on it (as a message sent from its page would).
 */
export const POST = route(async (request) => {
  const { loadRegistry, resolveModel } = await serverCore();
  const app = await getApp();
  await enforceRateLimit("entry", app.entryLimiter);
  const { goal, ...body } = await readBody(request, CreateConversationBodySchema);
  const registry = await loadRegistry(app.root);
  const modelKey = body.model_key ?? registry.default;
  try {
    resolveModel(registry, modelKey);
  } catch (error) {
    throw new ValidationError((error as Error).message, [{ path: "model_key", message: (error as Error).message }]);
  }
  const conversation = await app.store.create({ ...body, model_key: modelKey });
  if (!goal) return answer(CreatedConversationResponseSchema, { conversation }, { status: 201 });
  const started = await app.commands.run(conversation.id, { op: "leader_message", args: { content: goal } });
  return answer(CreatedConversationResponseSchema, { conversation: await app.store.get(conversation.id), started }, { status: 201 });
});

import { PatchConversationBodySchema, ConversationResponseSchema, DeletedResponseSchema } from "@/lib/contracts/http";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { ValidationError } from "@/lib/contracts/errors";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string };

export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const app = await getApp();
  return answer(ConversationResponseSchema, { conversation: await app.store.get(id) });
});

/** Renames, archives or unarchives, or changes the model (a registered key: 400 naming the known ones otherwise). */
export const PATCH = route<Params>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const body = await readBody(request, PatchConversationBodySchema);
  const app = await getApp();
  if (body.model_key !== undefined) {
    const { loadRegistry, resolveModel } = await serverCore();
    try {
      resolveModel(await loadRegistry(app.root), body.model_key);
    } catch (error) {
      throw new ValidationError((error as Error).message, [{ path: "model_key", message: (error as Error).message }]);
    }
  }
  const before = await app.store.get(id);
  const { model_key: modelKey, ...rest } = body;
  const engine = (await getApp()).engine;
  // Held meanwhile: a conversation being let go is not written under its checkpoint.
  let conversation = modelKey === undefined || Object.keys(rest).length > 0 ? await engine.withConversation(id, () => app.store.update(id, rest)) : before;
  // A new model goes through the run, which records the change on the timeline (an archived
  // conversation has no run: its metadata alone changes).
  if (modelKey !== undefined && modelKey !== conversation.model_key) {
    conversation =
      conversation.status === "archived"
        ? await engine.withConversation(id, () => app.store.update(id, { model_key: modelKey }))
        : await app.commands.run(id, { op: "change_model", args: { model_key: modelKey }, author: authorOf(request) });
  }
  // An archived conversation does no work: its run stops and its agents' tokens are revoked.
  // Its conclusions then go to long-term memory in the background.
  if (body.status === "archived" && before.status !== "archived") {
    await (await getApp()).engine.forgetRun(id);
    (await getApp()).engine.distillArchived(id);
  } else if (body.status === "archived") await (await getApp()).engine.forgetRun(id);
  // Unarchived: its agents' tokens are issued again (it resumes as at boot).
  else if (body.status === "active" && before.status === "archived") await (await getApp()).engine.resumeRun(id);
  return answer(ConversationResponseSchema, { conversation });
});

/** Deletes the conversation's folder and its index entry. */
export const DELETE = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const app = await getApp();
  await app.store.get(id);
  await (await getApp()).engine.forgetRun(id);
  await app.store.remove(id);
  return answer(DeletedResponseSchema, { deleted: id });
});

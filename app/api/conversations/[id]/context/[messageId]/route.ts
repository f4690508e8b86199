import { promises as fs } from "node:fs";
import path from "node:path";
import { ContextLineSchema } from "@/lib/context/report";
import { ContextMessageIdSchema } from "@/lib/contracts/http";
import { NotFoundError } from "@/lib/contracts/errors";
import { answer, parseWith, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** What one model call saw: its three context slices, in full (the message keeps only totals). */
export const GET = route<{ id: string; messageId: string }>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const messageId = parseWith(ContextMessageIdSchema, params.messageId, "Bad message id");
  const { parseJsonLines, CONTEXT_FILE_NAME } = await serverCore();
  const app = await getApp();
  await app.store.get(id);
  let text = "";
  try {
    text = await fs.readFile(path.join(app.root, "conversations", id, CONTEXT_FILE_NAME), "utf8");
  } catch {
    /* no call recorded yet */
  }
  const { records } = parseJsonLines(text, (v) => {
    const r = ContextLineSchema.safeParse(v);
    return r.success ? { ok: true, value: r.data } : { ok: false, reason: r.error.message };
  });
  const found = records.find((r) => r.message_id === messageId);
  if (!found) throw new NotFoundError(`No context report for message ${messageId}.`);
  return answer(ContextLineSchema, { message_id: found.message_id, agent_id: found.agent_id, report: found.report });
});

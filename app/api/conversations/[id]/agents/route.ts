import { answer, parseWith, route } from "@/lib/http";
import { ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";
import { AgentListResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** The conversation's sub-agents with status, task, last activity and tokens. */
export const GET = route<{ id: string }>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const snapshot = await (await getApp()).commands.run(id, { op: "snapshot", args: {} });
  return answer(AgentListResponseSchema, { agents: snapshot.agents, questions: snapshot.questions });
});

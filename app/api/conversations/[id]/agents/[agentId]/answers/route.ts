import { AnswerBodySchema, AnswerResponseSchema } from "@/lib/contracts/http";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { AgentIdSchema, ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** A person answers a sub-agent's pending question; the agent resumes. 409 when already answered. */
export const POST = route<{ id: string; agentId: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const agentId = parseWith(AgentIdSchema, params.agentId, "Bad agent id");
  const body = await readBody(request, AnswerBodySchema);
  const answered = await (await getApp()).commands.run(id, { op: "answer", args: { agent_id: agentId, question_id: body.question_id, answer: body.answer }, author: authorOf(request) });
  return answer(AnswerResponseSchema, answered);
});

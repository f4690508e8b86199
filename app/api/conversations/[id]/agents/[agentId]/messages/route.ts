import { AgentMessageResponseSchema, PostMessageBodySchema } from "@/lib/contracts/http";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { AgentIdSchema, ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * A person's message to one sub-agent, delivered before its next step; while a run is going, an
 * intervention handled by `strategy` (steer, queue, interrupt; issue 32).
 */
export const POST = route<{ id: string; agentId: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const agentId = parseWith(AgentIdSchema, params.agentId, "Bad agent id");
  const body = await readBody(request, PostMessageBodySchema);
  const sent = await (await getApp()).commands.run(id, { op: "agent_message", args: { agent_id: agentId, content: body.content, strategy: body.strategy }, author: authorOf(request) });
  return answer(AgentMessageResponseSchema, sent, { status: 202 });
});

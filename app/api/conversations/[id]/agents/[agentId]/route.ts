import { answer, authorOf, parseWith, route } from "@/lib/http";
import { AgentIdSchema, ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";
import { AgentDetailSchema, TerminateAgentResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Params = { id: string; agentId: string };

/** One sub-agent: its metadata and whole conversation. */
export const GET = route<Params>(async (_request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const agentId = parseWith(AgentIdSchema, params.agentId, "Bad agent id");
  return answer(AgentDetailSchema, await (await getApp()).commands.run(id, { op: "agent_detail", args: { agent_id: agentId } }));
});

/** Terminates one sub-agent (a person's decision). */
export const DELETE = route<Params>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const agentId = parseWith(AgentIdSchema, params.agentId, "Bad agent id");
  return answer(TerminateAgentResponseSchema, await (await getApp()).commands.run(id, { op: "terminate_agent", args: { agent_id: agentId }, author: authorOf(request) }));
});

import { ApprovalBodySchema, ApprovalResponseSchema } from "@/lib/contracts/http";
import { answer, authorOf, parseWith, readBody, route } from "@/lib/http";
import { AgentIdSchema, ConversationIdSchema } from "@/lib/contracts/on-disk";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * A person approves or denies a sub-agent's tool call waiting for approval: approved, it runs
 * and its result goes to the agent; denied, the agent gets a tool error with the reason. 404 for
 * a call the agent never made, 409 for one already decided.
 */
export const POST = route<{ id: string; agentId: string }>(async (request, params) => {
  const id = parseWith(ConversationIdSchema, params.id, "Bad conversation id");
  const agentId = parseWith(AgentIdSchema, params.agentId, "Bad agent id");
  const body = await readBody(request, ApprovalBodySchema);
  // Who decides is who is signed in (the body's `author` is ignored since issue 32).
  const args = { agent_id: agentId, tool_call_id: body.tool_call_id, decision: body.decision, reason: body.reason, always: body.always, pattern: body.pattern };
  return answer(ApprovalResponseSchema, await (await getApp()).commands.run(id, { op: "approval", args, author: authorOf(request) }));
});

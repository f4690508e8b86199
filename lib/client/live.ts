/** Query factories and fetchers for a conversation's live run: messages, stop, agents, answers. */
import { InterventionActionBodySchema, InterventionsResponseSchema, type InterventionActionBody, type InterventionStrategy } from "@/lib/contracts/interventions";
import { queryOptions } from "@tanstack/react-query";
import {
  AgentDetailSchema,
  AgentMessageResponseSchema,
  AnswerBodySchema,
  AnswerResponseSchema,
  ApprovalBodySchema,
  ApprovalResponseSchema,
  type ApprovalBody,
  PostMessageBodySchema,
  PostMessageResponseSchema,
  RetryBodySchema,
  RetryResponseSchema,
  StopResponseSchema,
  TerminateAgentResponseSchema,
} from "@/lib/contracts/http";
import { apiFetch, bodyOf } from "./api";

function conversationPath(id: string): string {
  return `/api/conversations/${encodeURIComponent(id)}`;
}

/** The URL of a conversation's server-sent events. */
export function conversationEventsUrl(id: string): string {
  return `${conversationPath(id)}/events`;
}

/** Query keys of live-run data. */
const liveKeys = {
  agent: (conversationId: string, agentId: number, epoch: number) =>
    ["conversations", "agent", conversationId, agentId, epoch] as const,
};

/**
 * One sub-agent's detail, fetched once per snapshot `epoch`: later messages arrive over SSE and
 * are merged in, so this never refetches on its own.
 */
export function agentDetailQuery(conversationId: string, agentId: number, epoch: number) {
  return queryOptions({
    queryKey: liveKeys.agent(conversationId, agentId, epoch),
    queryFn: ({ signal }) => apiFetch(`${conversationPath(conversationId)}/agents/${agentId}`, AgentDetailSchema, { signal }),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}

/** `POST /api/conversations/[id]/messages`: a person's message to the Team Leader (202). */
export async function postLeaderMessage(id: string, content: string, strategy?: InterventionStrategy) {
  return apiFetch(`${conversationPath(id)}/messages`, PostMessageResponseSchema, {
    method: "POST",
    body: bodyOf(PostMessageBodySchema, { content, ...(strategy ? { strategy } : {}) }),
  });
}

/** `POST /api/conversations/[id]/interventions`: withdraw a queued message or an agent's task, or reorder the queue (issue 32). */
export async function postIntervention(id: string, action: InterventionActionBody) {
  return apiFetch(`${conversationPath(id)}/interventions`, InterventionsResponseSchema, {
    method: "POST",
    body: bodyOf(InterventionActionBodySchema, action),
  });
}

/** `POST /api/conversations/[id]/retry`: retries the failed work of the leader (null) or one idle agent (202). */
export async function retryWork(id: string, agentId: number | null) {
  return apiFetch(`${conversationPath(id)}/retry`, RetryResponseSchema, { method: "POST", body: bodyOf(RetryBodySchema, { agent_id: agentId }) });
}

/** `POST /api/conversations/[id]/stop`: stops the whole conversation. */
export async function stopConversation(id: string) {
  return apiFetch(`${conversationPath(id)}/stop`, StopResponseSchema, { method: "POST", body: {} });
}

/** `POST …/agents/[agentId]/messages`: a person's message to one sub-agent (202). */
export async function postAgentMessage(id: string, agentId: number, content: string, strategy?: InterventionStrategy) {
  return apiFetch(`${conversationPath(id)}/agents/${agentId}/messages`, AgentMessageResponseSchema, {
    method: "POST",
    body: bodyOf(PostMessageBodySchema, { content, ...(strategy ? { strategy } : {}) }),
  });
}

/** `POST …/agents/[agentId]/answers`: a person answers a sub-agent's pending question. */
export async function answerAgentQuestion(id: string, agentId: number, questionId: string, answer: string) {
  return apiFetch(`${conversationPath(id)}/agents/${agentId}/answers`, AnswerResponseSchema, {
    method: "POST",
    body: bodyOf(AnswerBodySchema, { question_id: questionId, answer }),
  });
}

/** `POST …/agents/[agentId]/approvals`: a person approves or denies a tool call waiting for approval. */
export async function decideAgentApproval(id: string, agentId: number, body: ApprovalBody) {
  return apiFetch(`${conversationPath(id)}/agents/${agentId}/approvals`, ApprovalResponseSchema, {
    method: "POST",
    body: bodyOf(ApprovalBodySchema, body),
  });
}

/** `DELETE …/agents/[agentId]`: terminates one sub-agent. */
export async function terminateAgent(id: string, agentId: number) {
  return apiFetch(`${conversationPath(id)}/agents/${agentId}`, TerminateAgentResponseSchema, { method: "DELETE", body: {} });
}

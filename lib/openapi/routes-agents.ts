/**
 * Route table (see ./spec.ts): a conversation's sub-agents — the list, one agent, a person's
 * message to it, answers to its questions, decisions on its tool calls, terminating it.
 */
import {
  AgentDetailSchema,
  AgentListResponseSchema,
  AgentMessageResponseSchema,
  AnswerBodySchema,
  AnswerResponseSchema,
  ApprovalBodySchema,
  ApprovalResponseSchema,
  PostMessageBodySchema,
  TerminateAgentResponseSchema,
} from "@/lib/contracts/http";
import { AgentIdSchema, ConversationIdSchema } from "@/lib/contracts/on-disk";
import type { RouteSpec } from "./spec";

const agent = { id: ConversationIdSchema, agentId: AgentIdSchema };

export const AGENT_ROUTES: readonly RouteSpec[] = [
  {
    path: "/api/conversations/{id}/agents",
    params: { id: ConversationIdSchema },
    methods: {
      GET: {
        summary: "The conversation's sub-agents with status, task, last activity and tokens.",
        description: "`{agents, questions}`: each sub-agent's metadata, last activity, tokens, calls; open questions",
        answers: [{ status: 200, json: AgentListResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/{id}/agents/{agentId}",
    params: agent,
    methods: {
      GET: {
        summary: "One sub-agent: its metadata and whole conversation.",
        description: "`{agent, messages}`: one sub-agent and its whole conversation",
        answers: [{ status: 200, json: AgentDetailSchema }],
        errors: [404],
      },
      DELETE: {
        summary: "Terminates one sub-agent (a person's decision).",
        description: "terminate one sub-agent",
        answers: [{ status: 200, json: TerminateAgentResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/{id}/agents/{agentId}/messages",
    params: agent,
    methods: {
      POST: {
        summary: "A person's message to one sub-agent, delivered before its next step.",
        description: "a person's message to one sub-agent → 202; while a run is going an intervention by `strategy` (`steer` default, `queue`, `interrupt`; `new_task` is 400: it is the leader's); 409 when the agent was terminated or the conversation is archived, 429 (`Retry-After`) when its inbox is full",
        body: { json: PostMessageBodySchema },
        answers: [{ status: 202, json: AgentMessageResponseSchema }],
        errors: [404, 409, 429],
      },
    },
  },
  {
    path: "/api/conversations/{id}/agents/{agentId}/answers",
    params: agent,
    methods: {
      POST: {
        summary: "A person answers a sub-agent's pending question; the agent resumes.",
        description: "answer a pending `ask_master` question (409 if already answered)",
        body: { json: AnswerBodySchema },
        answers: [{ status: 200, json: AnswerResponseSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/conversations/{id}/agents/{agentId}/approvals",
    params: agent,
    methods: {
      POST: {
        summary: "A person approves or denies a sub-agent's tool call waiting for approval.",
        description:
          "decide a tool call waiting for approval (see [Commands and approval](commands-and-approval.md)) → `{decided, tool_call_id, decision}`; approve runs it, deny gives the agent a tool error with the reason; `always` (approve only) remembers it for the conversation — `pattern` (with `always`) is the command pattern to allow instead of the exact command; 404 for a call the agent never made, 409 for one already decided, 400 for a body that makes no sense (`deny` with `always`)",
        body: { json: ApprovalBodySchema },
        answers: [{ status: 200, json: ApprovalResponseSchema }],
        errors: [404, 409],
      },
    },
  },
];

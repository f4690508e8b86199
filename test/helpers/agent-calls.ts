/**
 * A conversation's first sub-agent as the API shows it, and waiting on its tool calls: a call's
 * saved result, or a call waiting for a person's approval (the agent `waiting`, its pending entry).
 */
import type { TestServer } from "./server";
import { until } from "./wait";

/** A message as these helpers read it. */
export type AgentMsg = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string; function?: { name: string } }> };

/** The first sub-agent of conversation `id` (its metadata and messages), empty while there is none. */
export async function firstAgent(server: TestServer, id: string): Promise<{ agent: { metadata: Record<string, any> }; messages: AgentMsg[] }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const list = (await server.api("GET", `/api/conversations/${id}/agents`)).json.agents as Array<{ metadata: { agent_id: number } }>;
  if (!list.length) return { agent: { metadata: {} }, messages: [] };
  return (await server.api("GET", `/api/conversations/${id}/agents/${list[0]!.metadata.agent_id}`)).json;
}

/** The saved result of tool call `callId` among `messages`, if any. */
function resultOf(messages: AgentMsg[], callId: string): string | undefined {
  const m = messages.find((x) => x.role === "tool" && x.tool_call_id === callId);
  return m === undefined ? undefined : String(m.content);
}

/** Waits for the saved result of the first agent's tool call `callId`. */
export async function waitResult(server: TestServer, id: string, callId: string, timeoutMs = 30_000): Promise<string> {
  return until(`the result of ${callId}`, async () => resultOf((await firstAgent(server, id)).messages, callId), timeoutMs);
}

/** Waits until the first agent's tool call `callId` waits for approval; its agent id and pending entry. */
export async function waitApproval(server: TestServer, id: string, callId: string, timeoutMs?: number): Promise<{ agentId: number; entry: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return until(
    `${callId} waiting for approval`,
    async () => {
      const a = await firstAgent(server, id);
      const entry = ((a.agent.metadata.pending_tool_calls ?? []) as Array<Record<string, unknown>>).find((p) => p.tool_call_id === callId);
      return entry && a.agent.metadata.status === "waiting" ? { agentId: a.agent.metadata.agent_id as number, entry } : null;
    },
    timeoutMs,
  );
}

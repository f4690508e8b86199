/**
 * Bus topic names. A conversation topic carries the runtime events every browser sees (numbered,
 * replayable); an agent topic only wakes that agent's loop when its inbox changes. Pure.
 */

/** `conv:<conversation id>`: the numbered stream of one conversation's runtime events. */
export type ConversationTopic = `conv:${string}` & { readonly __topic: "conversation" };

/** `conv:<conversation id>:agent:<agent id>`: plain wake-ups for one sub-agent's loop. */
export type AgentTopic = `conv:${string}:agent:${number}` & { readonly __topic: "agent" };

// Conversation ids never contain ':' (see CONVERSATION_ID_PATTERN), so the two shapes cannot collide.
const CONVERSATION_TOPIC = /^conv:[^:]+$/;

/** The topic of a conversation's runtime events. */
export function conversationTopic(convId: string): ConversationTopic {
  if (convId.includes(":") || convId === "") throw new TypeError(`Not a conversation id: "${convId}"`);
  return `conv:${convId}` as ConversationTopic;
}

/** The wake-up topic of one sub-agent of a conversation. */
export function agentTopic(convId: string, agentId: number): AgentTopic {
  if (!Number.isSafeInteger(agentId) || agentId <= 0) throw new TypeError(`Not an agent id: ${agentId}`);
  return `${conversationTopic(convId)}:agent:${agentId}` as AgentTopic;
}

/** True for `conv:<id>` topics, the only ones whose events are numbered and kept for replay. */
export function isConversationTopic(topic: string): topic is ConversationTopic {
  return CONVERSATION_TOPIC.test(topic);
}

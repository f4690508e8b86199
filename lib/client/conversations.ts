/** Query factories and mutations' fetchers for conversations. */
import { infiniteQueryOptions, queryOptions } from "@tanstack/react-query";
import {
  ConversationListSchema,
  ConversationResponseSchema,
  CreatedConversationResponseSchema,
  DeletedResponseSchema,
  type CreateConversationBody,
  type ListConversationsQuery,
  type PatchConversationBody,
} from "@/lib/contracts/http";
import { LeaderMessagesFileSchema } from "@/lib/contracts/on-disk";
import { apiFetch } from "./api";

/** Status filter of the conversation index. */
export type ConversationFilter = ListConversationsQuery["status"];

/** Query keys, so mutations can invalidate exactly what they changed. */
export const conversationKeys = {
  all: ["conversations"] as const,
  lists: () => [...conversationKeys.all, "list"] as const,
  detail: (id: string) => [...conversationKeys.all, "detail", id] as const,
  messages: (id: string) => [...conversationKeys.all, "messages", id] as const,
};

/** The conversation index page by page ("Load more"), newest first. */
export function conversationPagesQuery(params: { q: string; status: ConversationFilter; limit: number }) {
  return infiniteQueryOptions({
    queryKey: [...conversationKeys.lists(), "pages", params] as const,
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) => {
      const search = new URLSearchParams({ status: params.status, offset: String(pageParam), limit: String(params.limit) });
      if (params.q.trim()) search.set("q", params.q.trim());
      return apiFetch(`/api/conversations?${search.toString()}`, ConversationListSchema, { signal });
    },
    getNextPageParam: (last) => (last.offset + last.items.length < last.total ? last.offset + last.items.length : undefined),
  });
}

/** One conversation's metadata. */
export function conversationQuery(id: string) {
  return queryOptions({
    queryKey: conversationKeys.detail(id),
    queryFn: async ({ signal }) =>
      (await apiFetch(`/api/conversations/${encodeURIComponent(id)}`, ConversationResponseSchema, { signal })).conversation,
  });
}

/** The Team Leader's messages of one conversation. */
export function conversationMessagesQuery(id: string) {
  return queryOptions({
    queryKey: conversationKeys.messages(id),
    queryFn: ({ signal }) =>
      apiFetch(`/api/conversations/${encodeURIComponent(id)}/messages`, LeaderMessagesFileSchema, { signal }),
  });
}

/** `POST /api/conversations`; with a `goal`, the team starts on it in the same request. */
export async function createConversation(body: CreateConversationBody) {
  return (await apiFetch("/api/conversations", CreatedConversationResponseSchema, { method: "POST", body })).conversation;
}

/** `PATCH /api/conversations/[id]`: rename, archive or unarchive. */
export async function patchConversation(id: string, body: PatchConversationBody) {
  return (
    await apiFetch(`/api/conversations/${encodeURIComponent(id)}`, ConversationResponseSchema, { method: "PATCH", body })
  ).conversation;
}

/** `DELETE /api/conversations/[id]`. */
export async function deleteConversation(id: string) {
  return apiFetch(`/api/conversations/${encodeURIComponent(id)}`, DeletedResponseSchema, {
    method: "DELETE",
    body: {},
  });
}

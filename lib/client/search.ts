/** Query factory of the history search (`GET /api/search`). */
import { infiniteQueryOptions } from "@tanstack/react-query";
import { SearchResultSchema } from "@/lib/contracts/http";
import { apiFetch } from "./api";

/** The search form's values, as strings (empty: not set). */
export interface SearchParams {
  q: string;
  status: string;
  agent: string;
  role: string;
  model: string;
  message_role: string;
  from: string;
  to: string;
}

/** The fields of {@link SearchParams}, in the order they appear in a URL. */
const SEARCH_PARAM_KEYS = ["q", "status", "agent", "role", "model", "message_role", "from", "to"] as const;

/** `params` as a query string, empty values left out. */
export function searchParamsString(params: SearchParams): string {
  const search = new URLSearchParams();
  for (const key of SEARCH_PARAM_KEYS) {
    const value = params[key].trim();
    if (value) search.set(key, value);
  }
  return search.toString();
}

/** The hits of a search, page by page ("More results"). */
export function searchQuery(params: SearchParams, limit = 20) {
  return infiniteQueryOptions({
    queryKey: ["search", params, limit] as const,
    initialPageParam: "",
    queryFn: ({ pageParam, signal }) => {
      const search = new URLSearchParams(searchParamsString(params));
      search.set("limit", String(limit));
      if (pageParam) search.set("cursor", pageParam);
      return apiFetch(`/api/search?${search.toString()}`, SearchResultSchema, { signal });
    },
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    enabled: params.q.trim() !== "",
    staleTime: 10_000,
  });
}

/** Where a hit opens: its conversation, scrolled to the message (in the agent's drawer for a sub-agent's message). */
export function hitHref(hit: { conversation_id: string; agent_id: number | null; message_id: string | null }): string {
  const search = new URLSearchParams();
  if (hit.message_id) search.set("message", hit.message_id);
  if (hit.agent_id !== null) search.set("agent", String(hit.agent_id));
  const qs = search.toString();
  return `/conversations/${encodeURIComponent(hit.conversation_id)}${qs ? `?${qs}` : ""}`;
}

import "server-only";
/**
 * A search as the index answers it: the query parsed into an FTS5 expression with the filters'
 * tags, the newest matches ranked, and each hit's snippet shaped from its text.
 */
import { AstrionError } from "@/lib/contracts/errors";
import { LEADER_DISPLAY_NAME } from "@/lib/contracts/messages";
import type { SearchDb } from "./db";
import { matchExpression, parseQuery } from "./query";
import { lowerBound, RANK_WINDOW, upperBound, type SearchQuery, type SearchResult } from "@/lib/contracts/search";
import { snippetOf } from "./snippet";
import { filterTagGroups } from "./tags";

/** One page of hits for `query`; `indexing` is passed on to the answer (the index is being rebuilt). */
export function searchIndex(db: SearchDb, query: SearchQuery, indexing: boolean): SearchResult {
  const parsed = parseQuery(query.q);
  const match = matchExpression(parsed, filterTagGroups(query));
  const offset = query.cursor ? Number(query.cursor) : 0;
  if (!match || offset >= RANK_WINDOW) return { hits: [], has_more: false, next_cursor: null, indexing };
  const limit = Math.min(query.limit, RANK_WINDOW - offset);
  let rows;
  try {
    rows = db.search({
      match,
      from: query.from ? lowerBound(query.from) : undefined,
      to: query.to ? upperBound(query.to) : undefined,
      window: RANK_WINDOW,
      limit: limit + 1,
      offset,
    });
  } catch (error) {
    console.error("[astrion] search index: a query failed:", (error as Error).message);
    throw new AstrionError("storage_error", "The search index could not be read; see the server's log.");
  }
  const hits = rows.slice(0, limit).map((r) => ({
    conversation_id: r.conv_id,
    conversation_title: r.title ?? r.conv_id,
    conversation_status: r.status === "archived" ? ("archived" as const) : ("active" as const),
    agent_id: r.agent_id === 0 ? null : r.agent_id,
    agent_display_name: r.display_name ?? (r.agent_id === 0 ? LEADER_DISPLAY_NAME : `#${r.agent_id}`),
    role_id: r.agent_id === 0 ? null : r.role_id,
    model_key: r.model_key ?? "",
    message_role: r.role as SearchResult["hits"][number]["message_role"],
    message_id: r.message_id,
    message_index: r.idx,
    created_at: r.created_at,
    snippet: snippetOf(r.text, parsed),
    score: Math.round(-r.rank * 1000) / 1000,
  }));
  const hasMore = rows.length > limit;
  return { hits, has_more: hasMore, next_cursor: hasMore ? String(offset + limit) : null, indexing };
}

/**
 * BM25 ranking of roles (issue 9): a MiniSearch index (BM25+) over the registered roles' id, name,
 * description and tags, queried with the request text. Building the index is the costly part,
 * so one index is kept per set of role texts: while the role library does not change, every
 * request and every step reuses it; an edit to any role's text gives a new key and a new index.
 * Pure (no I/O); the cache is plain memory.
 */
import MiniSearch from "minisearch";
import { RANK_STOP_WORDS } from "@/lib/text/stop-words";
import { rankTerms } from "@/lib/text/terms";

/** What the index needs of a role. */
export interface IndexableRole {
  id: string;
  name: string;
  description: string;
  capabilities: readonly string[];
}

/** One role the BM25 query found, with its BM25+ score (higher is better, unbounded). */
interface RoleSearchHit {
  role_id: string;
  score: number;
}

/** The index of one set of roles. */
export interface RoleIndex {
  /** Roles in the index, in the order given. */
  readonly size: number;
  /** Roles ranked by BM25 for `query`, best first; ties keep the roles' order. At most `limit`. */
  search(query: string, limit?: number): RoleSearchHit[];
}

/**
 * Words that carry no meaning for routing: lib/text's ranking stop words, the filler of role
 * descriptions ("Use PROACTIVELY for …", "Expert in …", "Specializes in …"), and the words too
 * common among roles to say which one fits ("code" alone is not "code-review"). The tag matcher
 * leaves them out of partial matches too.
 */
export const ROUTING_STOP_WORDS: ReadonlySet<string> = new Set([
  ...RANK_STOP_WORDS,
  ..."role roles agent agents expert specializing specialize specializes masters master handles handle proactively include includes including work working code file files data".split(" "),
]);

/** The terms of a role's text or a request, as the index holds and queries them. */
const routingTerms = (text: string) => rankTerms(text, ROUTING_STOP_WORDS);

/** Field weights: a word in the role's id or name says more about what it does than one in its description. */
const BOOST = { id: 2, name: 2, description: 1, tags: 1.5 } as const;

/** Indexes kept: one per role set in use (conversations with different allow lists have different sets). */
const CACHE_SIZE = 8;

/** Characters of a query searched; the request's start says what it asks for (as for the tag matcher). */
export const SEARCH_READ_CHARS = 8000;

/**
 * Terms of a query searched, at most: each is a lookup and a merge of its hits, and 8,000
 * characters of CJK text are 7,999 bigrams (about 100 ms of the event loop for one routing).
 * The request's first terms, as for the characters.
 */
export const SEARCH_MAX_TERMS = 256;

const cache = new Map<string, RoleIndex>();
let built = 0;

/** How many indexes were built since the process started (tests check reuse with it). */
export function roleIndexBuilds(): number {
  return built;
}

// The key is the exact text indexed: two role sets share an index only when every indexed field is equal.
function keyOf(roles: readonly IndexableRole[]): string {
  return JSON.stringify(roles.map((r) => [r.id, r.name, r.description, r.capabilities]));
}

function build(roles: readonly IndexableRole[]): RoleIndex {
  built++;
  const order = new Map(roles.map((r, i) => [r.id, i]));
  const mini = new MiniSearch<{ id: string; name: string; description: string; tags: string }>({
    fields: ["id", "name", "description", "tags"],
    // Every field and query goes through the same term function, so English stems and Chinese
    // bigrams meet their counterparts; filler words never score.
    tokenize: routingTerms,
    processTerm: (term) => term,
    searchOptions: { boost: BOOST, combineWith: "OR", prefix: false, fuzzy: false },
  });
  // Tag words count as words: `security-review` is searchable as "security" and "review".
  mini.addAll(roles.map((r) => ({ id: r.id, name: r.name, description: r.description, tags: r.capabilities.join(" ") })));
  return {
    size: roles.length,
    search(query, limit = roles.length) {
      const terms = routingTerms(query.slice(0, SEARCH_READ_CHARS)).slice(0, SEARCH_MAX_TERMS);
      if (!terms.length) return [];
      return mini
        .search(terms.join(" "), { tokenize: () => terms })
        .map((h) => ({ role_id: String(h.id), score: h.score }))
        .sort((a, b) => b.score - a.score || (order.get(a.role_id) ?? 0) - (order.get(b.role_id) ?? 0))
        .slice(0, limit);
    },
  };
}

/**
 * The BM25 index of these roles: reused while the same roles with the same texts are asked for,
 * built otherwise (the least recently used of the kept indexes is dropped).
 */
export function roleIndex(roles: readonly IndexableRole[]): RoleIndex {
  const key = keyOf(roles);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const index = build(roles);
  cache.set(key, index);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return index;
}

/**
 * The largest request body each API route accepts, in bytes: the single table the request
 * guard (which refuses an oversize body before it is read), the proxy and `readBody` all use.
 * Each limit leaves room for the route's longest fields (e.g. 100,000 characters of a message,
 * at up to three UTF-8 bytes each, plus JSON escapes). Pure: importable anywhere.
 */

/** One row of {@link BODY_LIMITS}. */
export interface BodyLimitRule {
  /** Methods the row applies to. */
  methods: readonly string[];
  /** The path, with `*` for one segment (`/api/conversations/*\/messages`). */
  path: string;
  /** Bytes. */
  limit: number;
  /** What the limit is for (shown in docs/limits.md). */
  why: string;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** Limit of any mutating API request not listed in {@link BODY_LIMITS} (they take no body, or a tiny one). */
export const DEFAULT_BODY_LIMIT = 16 * KiB;

/** Body limits per route, first match wins. */
export const BODY_LIMITS: readonly BodyLimitRule[] = [
  { methods: ["POST"], path: "/api/conversations/*/messages", limit: 512 * KiB, why: "a person's message: content ≤ 100,000 characters" },
  { methods: ["POST"], path: "/api/conversations/*/agents/*/messages", limit: 512 * KiB, why: "a person's message to one agent: content ≤ 100,000 characters" },
  { methods: ["POST"], path: "/api/conversations/*/agents/*/answers", limit: 512 * KiB, why: "an answer: answer ≤ 100,000 characters" },
  { methods: ["POST"], path: "/api/conversations/*/presence", limit: 1 * KiB, why: "presence's acknowledgment: a viewer id, a drawer, a typing target" },
  { methods: ["PUT"], path: "/api/conversations/*/shared-context", limit: 128 * KiB, why: "a shared-context write: key ≤ 200, value ≤ 20,000 characters" },
  { methods: ["POST"], path: "/api/conversations", limit: 64 * KiB, why: "a new conversation: title ≤ 200, project_path ≤ 4,096 characters" },
  { methods: ["PATCH"], path: "/api/conversations/*", limit: 128 * KiB, why: "rename, archive, allowed_roles (≤ 500 role ids)" },
  { methods: ["POST"], path: "/api/roles", limit: 1 * MiB, why: "a new role: body ≤ 200,000 characters, description ≤ 4,000" },
  { methods: ["PUT"], path: "/api/roles/*", limit: 1 * MiB, why: "a role's fields and body, or its raw text ≤ 262,144 characters" },
  { methods: ["POST"], path: "/api/roles/import", limit: 1 * MiB, why: "an imported .md file: content ≤ 262,144 characters" },
  { methods: ["POST"], path: "/api/conversations/import", limit: 64 * MiB, why: "a conversation zip (raw application/zip body); its contents are bounded again when unpacked" },
  { methods: ["POST"], path: "/api/conversations/export", limit: 16 * KiB, why: "the ids of a bulk export (≤ 50)" },
  { methods: ["PUT"], path: "/api/role-files", limit: 1 * MiB, why: "a misnamed role file's raw text ≤ 262,144 characters" },
  { methods: ["POST"], path: "/api/mcp/servers", limit: 256 * KiB, why: "a new MCP server: command, args, env or url, headers" },
  { methods: ["PUT"], path: "/api/mcp/servers", limit: 1 * MiB, why: "every MCP server of mcp.json" },
  { methods: ["PUT"], path: "/api/mcp/servers/*", limit: 256 * KiB, why: "one MCP server: command, args, env or url, headers" },
  { methods: ["POST"], path: "/api/auth/signin", limit: 4 * KiB, why: "the access token ≤ 1,024 characters" },
];

/** The largest limit of all: what Next itself may buffer for the proxy (`proxyClientMaxBodySize`). */
export const MAX_BODY_LIMIT = Math.max(DEFAULT_BODY_LIMIT, ...BODY_LIMITS.map((r) => r.limit));

function pathMatches(pattern: string, pathname: string): boolean {
  // trailing slashes dropped by a loop: a regular expression would backtrack on a long run of them
  let end = pathname.length;
  while (end > 1 && pathname.charCodeAt(end - 1) === 0x2f) end--;
  const want = pattern.split("/");
  const got = pathname.slice(0, end).split("/");
  return want.length === got.length && want.every((w, i) => w === "*" ? (got[i] ?? "") !== "" : w === got[i]);
}

/** True for methods whose requests may carry a body this app reads. */
export function isBodyMethod(method: string | undefined): boolean {
  return method === "POST" || method === "PUT" || method === "PATCH" || method === "DELETE";
}

/**
 * The body limit of a request, in bytes: its {@link BODY_LIMITS} row, else
 * {@link DEFAULT_BODY_LIMIT}; null when the request is not a body-carrying API request (pages,
 * assets and GETs are not limited here).
 */
export function bodyLimitFor(method: string | undefined, pathname: string): number | null {
  const m = (method ?? "GET").toUpperCase();
  if (!isBodyMethod(m) || !(pathname === "/api" || pathname.startsWith("/api/"))) return null;
  return BODY_LIMITS.find((r) => r.methods.includes(m) && pathMatches(r.path, pathname))?.limit ?? DEFAULT_BODY_LIMIT;
}

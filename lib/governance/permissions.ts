/**
 * Least privilege (seed 003 §6.3): every sub-agent holds a token scoped to its conversation,
 * its role's permissions and its resources, valid until the agent ends or the conversation
 * closes. Every tool call is checked against it in code before it runs, so what a model reads
 * (a file telling it to "write ../x") cannot widen what it may do.
 *
 * Tokens live in one {@link AgentTokens} registry per server: the composition root
 * (lib/server/app.ts) makes it and hands it to the engine, which issues and checks every token
 * through it (Next bundles server code per route, so a registry kept in this module would exist
 * once per bundle). They are not persisted; after a restart the runtime issues them again for the
 * agents it resumes ({@link AgentTokens.ensure}).
 */
import path from "node:path";

/** One scope of a token: what a token may allow. */
export type AgentScope =
  | "project:read"
  | "project:write"
  | "project:execute"
  | "message:leader"
  | "message:teammates"
  | "shared_context:read"
  | "shared_context:write"
  | "tools:mcp"
  | "gateway:call";

/** A scoped token. `token` is the random id; the rest says what it allows. */
export interface AgentToken {
  token: string;
  conversation_id: string;
  agent_id: number;
  role_id: string;
  scopes: AgentScope[];
  project_path: string;
  /** Epoch ms. */
  issued_at: number;
  /** Epoch ms, or null: valid until revoked. */
  expires_at: number | null;
  /** Epoch ms when revoked, or null while live. */
  revoked_at: number | null;
}

/** What {@link AgentTokens.issue} needs. `permissions` are the role's (`read`, `write`). */
export interface IssueTokenInput {
  conversation_id: string;
  agent_id: number;
  role_id: string;
  permissions: readonly string[];
  project_path: string;
}

/** Options of issuing: a clock for tests and an optional lifetime. */
export interface IssueOptions {
  now?: number;
  /** Lifetime in ms; omitted, the token lives until it is revoked. */
  ttlMs?: number;
}

/** Revoked or expired records are kept this long so a late call says "revoked", not "unknown". */
const TOMBSTONE_MS = 60 * 60 * 1000;

function randomId(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return `agt_${Buffer.from(bytes).toString("base64url")}`;
}

/**
 * The scopes a role's permissions give. Every agent may read the project, message the leader
 * and teammates, use the shared context and the MCP and gateway tools its role grants; only `write` adds `project:write`, and only
 * `execute` adds `project:execute` (running commands in the project folder).
 */
export function scopesFor(permissions: readonly string[]): AgentScope[] {
  // `tools:mcp` and `gateway:call` are every agent's: which MCP and gateway tools it may call is its role's (lib/mcp, lib/gateway).
  const scopes: AgentScope[] = ["project:read", "message:leader", "message:teammates", "shared_context:read", "shared_context:write", "tools:mcp", "gateway:call"];
  if (permissions.includes("execute")) scopes.splice(1, 0, "project:execute");
  if (permissions.includes("write")) scopes.splice(1, 0, "project:write");
  return scopes;
}

function isLive(t: AgentToken, now: number): boolean {
  return t.revoked_at === null && (t.expires_at === null || t.expires_at > now);
}

/** Why a call was refused; `reason` is written for the model and the timeline. */
export type ToolCheck =
  | { ok: true; scope: AgentScope }
  | {
      ok: false;
      code: "no_token" | "unknown_token" | "revoked" | "expired" | "wrong_conversation" | "wrong_agent" | "missing_scope" | "outside_project";
      reason: string;
      scope?: AgentScope;
    };

/** The call being checked. `agent_id`, when given, must be the token's agent. */
export interface ToolCallContext {
  conversation_id: string;
  agent_id?: number;
  /** The tool's name, for the refusal's words. */
  tool: string;
  /** The scope the tool needs: each tool object says which (lib/runtime/team/tool-kit.ts). */
  scope: AgentScope;
  /** The tool's `path` argument names a place in the project folder, which must not be left. */
  confined?: boolean;
  args?: Record<string, unknown>;
}

/** True when `target` (absolute) is `root` or inside it. */
function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** A token as the timeline and UI may show it: the id shortened, never the whole secret. */
export function describeToken(t: AgentToken): { token_hint: string; conversation_id: string; agent_id: number; role_id: string; scopes: AgentScope[]; expires_at: number | null } {
  return { token_hint: `${t.token.slice(0, 8)}…`, conversation_id: t.conversation_id, agent_id: t.agent_id, role_id: t.role_id, scopes: [...t.scopes], expires_at: t.expires_at };
}

/**
 * The permission tokens of a process's agents: every token by id, and the live ones by
 * conversation and agent (so no lookup scans every token). Made once by the composition root and
 * handed to the engine; tests make their own.
 */
export class AgentTokens {
  readonly #byId = new Map<string, AgentToken>();
  readonly #live = new Map<string, Map<number, AgentToken>>();
  #prunedAt = 0;

  /** Forgets tombstones past their time; at most once a minute, so issuing stays cheap. */
  #prune(now: number): void {
    if (now - this.#prunedAt < 60_000) return;
    this.#prunedAt = now;
    for (const [id, t] of this.#byId) {
      const ended = t.revoked_at ?? (t.expires_at !== null && t.expires_at <= now ? t.expires_at : null);
      if (ended !== null && now - ended > TOMBSTONE_MS) this.#byId.delete(id);
    }
  }

  /** Keeps a new live token (its agent's previous one was revoked first). */
  #remember(token: AgentToken): AgentToken {
    this.#byId.set(token.token, token);
    let agents = this.#live.get(token.conversation_id);
    if (!agents) this.#live.set(token.conversation_id, (agents = new Map()));
    agents.set(token.agent_id, token);
    return token;
  }

  /**
   * Issues a token for one sub-agent. An agent holds one live token: issuing again (a new task,
   * a restart) revokes the previous one.
   */
  issue(input: IssueTokenInput, options: IssueOptions = {}): AgentToken {
    const now = options.now ?? Date.now();
    this.#prune(now);
    this.revoke(input.conversation_id, input.agent_id, now);
    return this.#remember({
      token: randomId(),
      conversation_id: input.conversation_id,
      agent_id: input.agent_id,
      role_id: input.role_id,
      scopes: scopesFor(input.permissions),
      project_path: path.resolve(input.project_path),
      issued_at: now,
      expires_at: options.ttlMs === undefined ? null : now + options.ttlMs,
      revoked_at: null,
    });
  }

  /** The live token of an agent, if it has one. */
  get(conversationId: string, agentId: number, now = Date.now()): AgentToken | undefined {
    const t = this.#live.get(conversationId)?.get(agentId);
    return t && isLive(t, now) ? t : undefined;
  }

  /**
   * The agent's live token, or a new one when it has none (first call after a restart). A live
   * token issued for other permissions (the role file changed) is replaced.
   */
  ensure(input: IssueTokenInput, options: IssueOptions = {}): AgentToken {
    const live = this.get(input.conversation_id, input.agent_id, options.now ?? Date.now());
    const wanted = scopesFor(input.permissions);
    if (live && live.role_id === input.role_id && live.scopes.join() === wanted.join() && live.project_path === path.resolve(input.project_path)) return live;
    return this.issue(input, options);
  }

  /**
   * Revokes the live tokens of one agent (when it ends) or of every agent of a conversation
   * (when it closes or is deleted). Returns how many were revoked.
   */
  revoke(conversationId: string, agentId?: number, now = Date.now()): number {
    const agents = this.#live.get(conversationId);
    if (!agents) return 0;
    let n = 0;
    for (const [id, t] of agents) {
      if (agentId !== undefined && id !== agentId) continue;
      if (t.revoked_at === null) {
        t.revoked_at = now;
        n++;
      }
      agents.delete(id);
    }
    if (!agents.size) this.#live.delete(conversationId);
    return n;
  }

  /**
   * A role's permissions changed: every live token of an agent of that role that allows more
   * than the role now does is revoked and replaced by one with only what both allow (never
   * more). Takes effect at the agent's very next tool call. Returns the agents whose tokens were
   * narrowed.
   */
  narrowRole(roleId: string, permissions: readonly string[], now = Date.now()): { conversation_id: string; agent_id: number; scopes: AgentScope[] }[] {
    const allowed = new Set(scopesFor(permissions));
    const narrowed: { conversation_id: string; agent_id: number; scopes: AgentScope[] }[] = [];
    const affected = [...this.#live.values()].flatMap((agents) => [...agents.values()]).filter((t) => t.role_id === roleId && isLive(t, now) && t.scopes.some((sc) => !allowed.has(sc)));
    for (const t of affected) {
      this.revoke(t.conversation_id, t.agent_id, now);
      const scopes = t.scopes.filter((sc) => allowed.has(sc));
      this.#remember({ ...t, token: randomId(), scopes, issued_at: now, revoked_at: null });
      narrowed.push({ conversation_id: t.conversation_id, agent_id: t.agent_id, scopes });
    }
    return narrowed;
  }

  /**
   * Checks one tool call against a token (the token object or its id). The record kept here is
   * what counts, so a token revoked after it was handed out is refused. Path arguments are
   * checked lexically against the project folder too (the workspace layer checks symlinks).
   */
  check(token: AgentToken | string | undefined | null, call: ToolCallContext, now = Date.now()): ToolCheck {
    if (!token) return { ok: false, code: "no_token", reason: "permission denied: this agent holds no access token" };
    const id = typeof token === "string" ? token : token.token;
    const record = this.#byId.get(id);
    if (!record) return { ok: false, code: "unknown_token", reason: "permission denied: the access token is not recognized" };
    if (record.revoked_at !== null) return { ok: false, code: "revoked", reason: "permission denied: the access token was revoked (the agent ended or the conversation closed)" };
    if (record.expires_at !== null && record.expires_at <= now) return { ok: false, code: "expired", reason: "permission denied: the access token expired" };
    if (record.conversation_id !== call.conversation_id) {
      return { ok: false, code: "wrong_conversation", reason: "permission denied: the access token belongs to another conversation" };
    }
    if (call.agent_id !== undefined && record.agent_id !== call.agent_id) {
      return { ok: false, code: "wrong_agent", reason: "permission denied: the access token belongs to another agent" };
    }
    const scope = call.scope;
    if (!record.scopes.includes(scope)) {
      return {
        ok: false,
        code: "missing_scope",
        scope,
        reason: `permission denied: ${call.tool} needs ${scope}; role ${record.role_id} has ${record.scopes.filter((s) => s.startsWith("project:")).join(", ") || "no project access"}`,
      };
    }
    const p = call.args?.path;
    if (call.confined && typeof p === "string" && p !== "") {
      if (p.includes("\0") || !inside(record.project_path, path.resolve(record.project_path, p))) {
        return { ok: false, code: "outside_project", scope, reason: `permission denied: ${p} is outside the project folder` };
      }
    }
    return { ok: true, scope };
  }
}

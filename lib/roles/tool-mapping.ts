/**
 * What a role file's `tools:` names (Claude Code's `Read`, `Write`, `Bash`, `mcp__…`) mean in
 * this product: which of the sub-agent's file tools (and `run_command`, for `Bash`) they offer,
 * and what earns a warning. The one place a later issue extends (MCP servers for `mcp__…`). Pure.
 *
 * The rule: a role **with** `tools:` is offered exactly the file tools those names map to (its
 * `permissions:` no longer decide them); a role **without** `tools:` (or with an empty list, which
 * the editor writes as no key, as its hint says) keeps the defaults, where `permissions:` decide (the read tools always, `write_file` with `write`). The team tools
 * (`report_to_leader`, `ask_master`, `send_message`) and the shared-context tools are how a
 * sub-agent works inside the team, not Claude Code tools: they are always offered, whatever
 * `tools:` says, so a sub-agent can always report back.
 */
import { parseMcpName } from "@/lib/mcp/tools";
import type { Permission } from "./schema";

/** The sub-agent's file tools that only read the project folder. */
export const READ_FILE_TOOLS = ["list_files", "read_file", "search_files"] as const;
/** The sub-agent's file tool that changes the project folder (the `write` permission). */
const WRITE_FILE_TOOLS = ["write_file"] as const;
/** Every file tool, in the order the registry offers them. */
export const FILE_TOOLS = [...READ_FILE_TOOLS, ...WRITE_FILE_TOOLS] as const;
type FileToolName = (typeof FILE_TOOLS)[number];
/** The sub-agent's tool that runs commands in the project folder (the `execute` permission). */
const EXECUTE_TOOLS = ["run_command"] as const;
/** A tool a `tools:` name can grant: a file tool or `run_command`. */
type GrantedToolName = FileToolName | (typeof EXECUTE_TOOLS)[number];

/** Team tools every sub-agent has whatever its `tools:` (how it reports back and asks). */
const ALWAYS_OFFERED_TOOLS = ["report_to_leader", "ask_master", "send_message"] as const;

/**
 * How one `tools:` name maps:
 * - `mapped`: offers `grants`;
 * - `team`: already covered by a team tool every sub-agent has (`SendMessage` → `send_message`);
 * - `unavailable`: a Claude Code tool this product has no counterpart for yet (`WebFetch`…);
 * - `mcp`: an MCP server's tool (`mcp__<server>__<tool>`) or all of its tools (`mcp__<server>`),
 *   offered from the server declared in mcp.json (a warning when the server is not declared there);
 * - `gateway`: a protocol gateway tool (`gw__<source>__<operation>`, lib/gateway): granted as named;
 * - `unknown`: a name neither Claude Code nor this product has (a typo, another tool's name).
 */
type ToolMappingKind = "mapped" | "team" | "unavailable" | "mcp" | "gateway" | "unknown";

/** The mapping of one `tools:` name. */
export interface ToolMapping {
  /** The name as the role file writes it. */
  name: string;
  kind: ToolMappingKind;
  /** The tools it offers (empty unless `mapped`). */
  grants: GrantedToolName[];
  /** The team tool that covers it (`team` only). */
  covered_by?: string;
  /** For `mcp`: the server part of `mcp__<server>__<tool>`. */
  server?: string;
  /** For `mcp`: the tool part, or null for `mcp__<server>` (all of the server's tools). */
  tool?: string | null;
  /** For `mcp`: true when the declared servers are known and this one is not among them. */
  undeclared?: boolean;
  /** For `gateway`: the source part of `gw__<source>__<operation>`. */
  source?: string;
  /** True when the name deserves a warning: it offers nothing the role asked for. */
  warning: boolean;
}

const CLAUDE_FILE_TOOLS: Readonly<Record<string, readonly GrantedToolName[]>> = {
  // Reading alone is of little use without finding files, so each read name offers all three.
  Read: READ_FILE_TOOLS,
  Grep: READ_FILE_TOOLS,
  Glob: READ_FILE_TOOLS,
  LS: READ_FILE_TOOLS,
  Write: WRITE_FILE_TOOLS,
  Edit: WRITE_FILE_TOOLS,
  MultiEdit: WRITE_FILE_TOOLS,
  Bash: EXECUTE_TOOLS,
};

const TEAM_EQUIVALENTS: Readonly<Record<string, string>> = { SendMessage: "send_message" };

/**
 * Claude Code tools this product has no counterpart for yet, listed so the card says "not
 * available" rather than "unknown" for a name Claude Code does accept.
 */
const UNAVAILABLE_CLAUDE_TOOLS: ReadonlySet<string> = new Set([
  "BashOutput",
  "KillShell",
  "KillBash",
  "WebFetch",
  "WebSearch",
  "NotebookRead",
  "NotebookEdit",
  "TodoWrite",
  "Task",
  "Agent",
  "TaskCreate",
  "TaskList",
  "TaskGet",
  "TaskUpdate",
  "TeamCreate",
  "TeamDelete",
  "SlashCommand",
  "Skill",
  "ExitPlanMode",
]);

/** Same rule as lib/gateway's tool names: a source has no `__` inside. */
const GATEWAY_NAME = /^gw__([A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*)__(.+)$/;

function hasOwn(record: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/**
 * Maps one `tools:` name. Never throws; any string gets a mapping. `declaredServers` (the
 * servers of mcp.json, where known) makes an `mcp__` name of another server a warning.
 */
export function mapToolName(name: string, declaredServers?: ReadonlySet<string>): ToolMapping {
  if (hasOwn(CLAUDE_FILE_TOOLS, name)) return { name, kind: "mapped", grants: [...CLAUDE_FILE_TOOLS[name]!], warning: false };
  // This product's own names work too (a role written for Astrion may say `read_file`).
  if ((FILE_TOOLS as readonly string[]).includes(name) || (EXECUTE_TOOLS as readonly string[]).includes(name)) return { name, kind: "mapped", grants: [name as GrantedToolName], warning: false };
  if (hasOwn(TEAM_EQUIVALENTS, name)) return { name, kind: "team", grants: [], covered_by: TEAM_EQUIVALENTS[name]!, warning: false };
  if ((ALWAYS_OFFERED_TOOLS as readonly string[]).includes(name)) return { name, kind: "team", grants: [], covered_by: name, warning: false };
  const mcp = parseMcpName(name);
  if (mcp) {
    const undeclared = declaredServers !== undefined && !declaredServers.has(mcp.server);
    return { name, kind: "mcp", grants: [], server: mcp.server, tool: mcp.tool, ...(undeclared ? { undeclared } : {}), warning: undeclared };
  }
  const gw = GATEWAY_NAME.exec(name);
  if (gw) return { name, kind: "gateway", grants: [], source: gw[1]!, warning: false };
  if (UNAVAILABLE_CLAUDE_TOOLS.has(name)) return { name, kind: "unavailable", grants: [], warning: true };
  return { name, kind: "unknown", grants: [], warning: true };
}

/** What a role may use: the permissions its token carries and the file tools it is offered (`run_command` comes with `execute`). */
export interface RoleToolAccess {
  /** `explicit` when the role has `tools:` (they alone decide), `permissions` otherwise. */
  source: "explicit" | "permissions";
  permissions: Permission[];
  file_tools: FileToolName[];
  /** The mapping of each `tools:` name, in file order (empty without `tools:`). */
  mappings: ToolMapping[];
}

/**
 * The access a role's fields give. With `tools:` exactly the mapped file tools, `write` only
 * when `write_file` is among them and `execute` only when `Bash` (or `run_command`) is; without
 * (or with `tools: []`), the defaults and `permissions:` (`execute` offers `run_command`).
 */
export function roleToolAccess(fields: { tools?: readonly string[] | undefined; permissions?: readonly Permission[] | undefined }, declaredServers?: ReadonlySet<string>): RoleToolAccess {
  if (fields.tools === undefined || fields.tools.length === 0) {
    const permissions: Permission[] = [...(fields.permissions ?? ["read"])];
    const file_tools: FileToolName[] = [...READ_FILE_TOOLS, ...(permissions.includes("write") ? WRITE_FILE_TOOLS : [])];
    return { source: "permissions", permissions, file_tools, mappings: [] };
  }
  const mappings = fields.tools.map((t) => mapToolName(t, declaredServers));
  const granted = new Set(mappings.flatMap((m) => m.grants));
  const file_tools = FILE_TOOLS.filter((t) => granted.has(t));
  const permissions: Permission[] = [];
  if (file_tools.some((t) => (READ_FILE_TOOLS as readonly string[]).includes(t))) permissions.push("read");
  if (file_tools.includes("write_file")) permissions.push("write");
  if (granted.has("run_command")) permissions.push("execute");
  return { source: "explicit", permissions, file_tools, mappings };
}

/**
 * The project tools a role's agents are offered — its file tools, then `run_command` with
 * `execute` — what the role card counts. The team and shared-context tools every sub-agent has
 * are not counted, nor an MCP server's or a gateway's tools (their lines show them).
 */
export function offeredProjectTools(access: RoleToolAccess): GrantedToolName[] {
  return [...access.file_tools, ...(access.permissions.includes("execute") ? EXECUTE_TOOLS : [])];
}

/** The `tools:` names that earn a warning (unavailable, unknown, or an MCP server not declared), in file order. */
export function toolWarnings(tools: readonly string[] | undefined, declaredServers?: ReadonlySet<string>): ToolMapping[] {
  return (tools ?? []).map((t) => mapToolName(t, declaredServers)).filter((m) => m.warning);
}

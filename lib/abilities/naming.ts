/**
 * The tool names under which abilities are offered, one table per conversation. Pure.
 *
 * Rule: an ability is offered under its declared name when exactly one authorized role of the
 * conversation declares that name and it is no built-in tool (nor reserved); otherwise under
 * `<role_id>__<name>`. Declared names never contain `__`, so a qualified name cannot collide with
 * a plain one, and splits back at its last `__`. A qualified name longer than a function name may
 * be (64) or starting with a reserved prefix (`mcp__`, the MCP tools) becomes
 * `r<8 hex of the role id's hash>__<name>`. The table is built over every authorized role,
 * the caller's own included, so one name means the same ability to every agent of the
 * conversation; an agent is then offered all of it but its own role's entries.
 */
import type { Ability } from "./schema";

/** Longest function name OpenAI-compatible endpoints accept. */
const TOOL_NAME_MAX = 64;
/** Name prefixes other tool sources own (MCP: `mcp__<server>__<tool>`, the protocol gateway: `gw__<source>__<operation>`). */
const RESERVED_TOOL_PREFIXES: readonly string[] = ["mcp__", "gw__"];
/** Names of tools that exist or are being added beside the registry's (commands). */
const RESERVED_TOOL_NAMES: readonly string[] = ["run_command"];

/** A role's declared abilities, as the table is built from them. */
export interface RoleAbilities {
  role_id: string;
  role_name: string;
  provides: readonly Ability[];
}

/** One ability as offered: its tool name, whose it is, and the declaration. */
export interface OfferedAbility {
  tool_name: string;
  role_id: string;
  role_name: string;
  ability: Ability;
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable tag of a role id (no crypto needed). */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** `<role_id>__<name>`, or its hashed form when too long or under a reserved prefix. */
export function qualifiedToolName(roleId: string, name: string): string {
  const plain = `${roleId}__${name}`;
  if (plain.length <= TOOL_NAME_MAX && /^[A-Za-z0-9_-]+$/.test(plain) && !RESERVED_TOOL_PREFIXES.some((p) => plain.startsWith(p))) return plain;
  return `r${shortHash(roleId)}__${name}`;
}

/**
 * The conversation's ability table: tool name → ability. `builtIn` are the names of the tools
 * the product offers itself (lib/team-tools); an ability never shadows one.
 */
export function abilityTable(roles: readonly RoleAbilities[], builtIn: Iterable<string>): Map<string, OfferedAbility> {
  const reserved = new Set([...builtIn, ...RESERVED_TOOL_NAMES]);
  const declaredBy = new Map<string, number>();
  for (const r of roles) for (const a of r.provides) declaredBy.set(a.name, (declaredBy.get(a.name) ?? 0) + 1);
  const table = new Map<string, OfferedAbility>();
  for (const r of roles) {
    for (const ability of r.provides) {
      const plain = declaredBy.get(ability.name) === 1 && !reserved.has(ability.name) && !RESERVED_TOOL_PREFIXES.some((p) => ability.name.startsWith(p));
      const toolName = plain ? ability.name : qualifiedToolName(r.role_id, ability.name);
      // Two role ids differing only where the hash cannot tell them apart: the first keeps it.
      if (table.has(toolName)) continue;
      table.set(toolName, { tool_name: toolName, role_id: r.role_id, role_name: r.role_name, ability });
    }
  }
  return table;
}

/** What an agent of `ownRoleId` is offered: every entry but its own role's (it would call itself). */
export function abilitiesOfferedTo(table: ReadonlyMap<string, OfferedAbility>, ownRoleId: string): OfferedAbility[] {
  return [...table.values()].filter((o) => o.role_id !== ownRoleId);
}

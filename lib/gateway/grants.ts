/**
 * Which gateway tools a role's agents are offered, symmetric with how MCP servers are granted:
 * `gateway: [<source>]` grants every exposed operation of those sources (as `mcp_servers:` does a
 * server's tools), and a `tools:` entry `gw__<source>__<operation>` grants that one tool (as
 * `mcp__<server>__<tool>` does). Nothing else grants one. Pure.
 */
import { parseGatewayToolName } from "./openapi";

/** What a role grants. */
export interface GatewayGrant {
  sources: ReadonlySet<string>;
  tools: ReadonlySet<string>;
}

/** The grant of a role's fields. */
export function gatewayGrant(fields: { gateway?: readonly string[] | undefined; tools?: readonly string[] | undefined }): GatewayGrant {
  return {
    sources: new Set(fields.gateway ?? []),
    tools: new Set((fields.tools ?? []).filter((t) => parseGatewayToolName(t) !== null)),
  };
}

/** Whether the grant covers the tool called `name`. */
export function grantsTool(grant: GatewayGrant, name: string): boolean {
  const parsed = parseGatewayToolName(name);
  return parsed !== null && (grant.sources.has(parsed.source) || grant.tools.has(name));
}

/** Whether the grant covers anything at all (most roles: no). */
export function grantsAny(grant: GatewayGrant): boolean {
  return grant.sources.size > 0 || grant.tools.size > 0;
}

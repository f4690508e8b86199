import "server-only";
/**
 * The project folder's tools for sub-agents: list, read, search, and (with the role's `write`
 * permission) write. They work in the folder of the agent's token, every path confined to it by
 * the token check and again by lib/workspace; every access is audited. A role's `tools:` decide
 * which of them it is offered (`tools: Read` grants read_file, not list_files): one it was not
 * offered is refused even when the model names it.
 */
import { agentParty, SYSTEM_PARTY } from "@/lib/protocol";
import type { Permission } from "@/lib/roles/schema";
import { AGENT_TOOLS } from "@/lib/team-tools";
import { named, toolFrom, type TeamTool, type ToolContext, type ToolProvider } from "@/lib/runtime/team/tool-kit";
import { errorResult, summarize } from "@/lib/runtime/team/types";

/** The agent of a call (workspace tools are offered to sub-agents only). */
function agentIdOf(ctx: ToolContext): number {
  if (ctx.caller.agentId === null) throw new Error("a workspace tool was called by the leader");
  return ctx.caller.agentId;
}

/** The role's `tools:` as mapped when the agent was made: a file tool outside them is refused. */
async function roleFileTools(ctx: ToolContext): Promise<{ refused: string } | Record<string, never>> {
  const meta = ctx.caller.meta;
  if (!meta?.file_tools || meta.file_tools.includes(ctx.call.function.name)) return {};
  const name = ctx.call.function.name;
  const agentId = agentIdOf(ctx);
  const reason = `permission denied: your role's tools do not include ${name}`;
  await ctx.s.emitNow({ type: "event", from: SYSTEM_PARTY, to: agentParty(agentId), payload: { tool: name, code: "role_tools", reason, scope: null }, action: name, resource: `agent:${agentId}`, status: "refused" });
  return { refused: errorResult(reason) };
}

const FILE = { approval: true, confined: true, authorize: roleFileTools } as const;

const TOOLS: readonly TeamTool[] = [
  toolFrom(named(AGENT_TOOLS, "list_files"), {
    ...FILE,
    scope: "project:read",
    execute: async (ctx, args) => {
      const agentId = agentIdOf(ctx);
      const r = await ctx.s.deps.workspace.listFiles(ctx.root, args.path, { maxOutputChars: ctx.s.limits.toolOutputMax });
      ctx.s.auditAccess(agentId, "list_files", `dir:${r.path}`, { entries: r.entries.length, truncated: r.truncated });
      return JSON.stringify(r);
    },
  }),
  toolFrom(named(AGENT_TOOLS, "read_file"), {
    ...FILE,
    scope: "project:read",
    execute: async (ctx, args) => {
      const agentId = agentIdOf(ctx);
      const r = await ctx.s.deps.workspace.readFile(ctx.root, args.path, { maxOutputChars: ctx.s.limits.toolOutputMax });
      ctx.s.auditAccess(agentId, "read_file", `file:${r.path}`, { size: r.size, truncated: r.truncated });
      return JSON.stringify(r);
    },
  }),
  toolFrom(named(AGENT_TOOLS, "search_files"), {
    ...FILE,
    scope: "project:read",
    execute: async (ctx, args) => {
      const agentId = agentIdOf(ctx);
      const r = await ctx.s.deps.workspace.searchFiles(ctx.root, args.query, { path: args.path, glob: args.glob, maxOutputChars: ctx.s.limits.toolOutputMax });
      ctx.s.auditAccess(agentId, "search_files", `dir:${args.path ?? "."}`, { query: summarize(args.query, 80), matches: r.matches.length, files_scanned: r.filesScanned });
      return JSON.stringify(r);
    },
  }),
  toolFrom(named(AGENT_TOOLS, "write_file"), {
    ...FILE,
    scope: "project:write",
    execute: async (ctx, args) => {
      const agentId = agentIdOf(ctx);
      const r = await ctx.s.deps.workspace.writeFile(ctx.root, args.path, args.content);
      await ctx.s.emitNow({ type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload: { path: r.path, bytes: r.bytes }, action: "write_file", resource: `file:${r.path}` });
      return JSON.stringify(r);
    },
  }),
];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
/** The role permission each tool needs to be offered (the registry's: `write` for write_file), by name. */
const PERMISSION: ReadonlyMap<string, Permission | null> = new Map(AGENT_TOOLS.map((d) => [d.name, d.permission]));

/** The workspace tools a sub-agent is offered: by its role's permissions and, when set, its `tools:`. */
export const workspaceTools: ToolProvider = {
  name: "workspace",
  offer: async ({ caller }) => {
    if (caller.agentId === null) return { tools: [] };
    const permissions = (caller.meta.permissions ?? []) as Permission[];
    const fileTools = caller.meta.file_tools;
    return {
      tools: TOOLS.filter((t) => {
        const needs = PERMISSION.get(t.name) ?? null;
        return (needs === null || permissions.includes(needs)) && (fileTools === undefined || fileTools.includes(t.name));
      }),
    };
  },
  resolve: async (name, { caller }) => (caller.agentId === null ? undefined : BY_NAME.get(name)),
};

import "server-only";
/**
 * `run_command`, for a sub-agent whose role has the `execute` permission: the command line runs
 * in the project folder of the agent's token, after the approval policy (a person, or an
 * allow-list whose vouching lib/governance/tool-policy.ts decides; an allow-listed git runs
 * hardened), journalled under its key so a crash never runs it twice (the key also marks its
 * processes, so recovery can end what it left running). How it runs is lib/runtime/team/command.ts.
 */
import type { Permission } from "@/lib/roles/schema";
import { AGENT_TOOLS } from "@/lib/team-tools";
import { executeRunCommand, killLeftovers } from "@/lib/runtime/team/command";
import { named, toolFrom, type ToolProvider } from "@/lib/runtime/team/tool-kit";

const RUN_COMMAND = toolFrom(named(AGENT_TOOLS, "run_command"), {
  scope: "project:execute",
  approval: true,
  command: (args) => args.command,
  // A command a crash cut short may have left processes running (their own process group, which
  // the server's death does not end): they are ended before the call is reported interrupted.
  journal: ({ s }) => ({ interrupted: async (key) => void (await killLeftovers(s, key)) }),
  execute: async ({ s, caller, call, key, root, hardened }, args) => {
    if (caller.agentId === null) throw new Error("run_command was called by the leader");
    return executeRunCommand(s, caller.agentId, call.id, key, args.command, args.timeout_seconds, root, hardened);
  },
});

/** `run_command`, offered with the `execute` permission. */
export const commandTools: ToolProvider = {
  name: "commands",
  offer: async ({ caller }) => ({ tools: caller.agentId !== null && ((caller.meta.permissions ?? []) as Permission[]).includes("execute") ? [RUN_COMMAND] : [] }),
  resolve: async (name, { caller }) => (caller.agentId !== null && name === RUN_COMMAND.name ? RUN_COMMAND : undefined),
};

import "server-only";
/**
 * `run_command` in a conversation: the command runs in the agent token's project folder with the
 * server's environment minus secrets and the app's own variables, under the call's deadline
 * (capped by the server's maximum), killed with its process group on Stop or termination. Its
 * live output goes to viewers as a live-only event; the capped output is the tool's result.
 * Always called under `once()`: a command that completed is never run again. A command an
 * allow-list let through (not a person) runs `hardened` (lib/commands/git-guard.ts).
 */
import { createHash } from "node:crypto";
import { commandEnvironment } from "@/lib/commands";
import { hardenedEnvironment } from "@/lib/commands/git-guard";
import { killLeftoverCommand, runCommand } from "@/lib/commands/run";
import { loadRegistry } from "@/lib/models";
import { agentParty, SYSTEM_PARTY } from "@/lib/protocol";
import type { TeamState } from "./state";
import { summarize } from "./types";

/** Characters of a result's JSON around the output (command, cwd, codes). */
const RESULT_OVERHEAD = 600;
/** Live output is sent in pieces at most this often, so a chatty command does not flood viewers. */
const LIVE_FLUSH_MS = 100;

/** The marker a command's processes carry, derived from its idempotency key (so recovery can find them). */
function commandIdFor(convId: string, key: string): string {
  return createHash("sha256").update(`${convId}\n${key}`).digest("hex").slice(0, 32);
}

/** Names the model registry reads API keys from: withheld from commands whatever they are called. */
async function registryKeyNames(root: string): Promise<Set<string>> {
  const registry = await loadRegistry(root).catch(() => null);
  return new Set(Object.values(registry?.models ?? {}).flatMap((m) => (m.api_key_env ? [m.api_key_env] : [])));
}

/** Runs one `run_command` call (inside `once()`, whose key is `key`); the JSON result for the model. */
export async function executeRunCommand(
  s: TeamState,
  agentId: number,
  toolCallId: string,
  key: string,
  command: string,
  timeoutSeconds: number | undefined,
  cwd: string,
  hardened?: { gitOverrides: Array<[string, string]> },
): Promise<string> {
  const timeoutMs = Math.min(timeoutSeconds !== undefined ? timeoutSeconds * 1000 : s.limits.commandTimeoutMs, s.limits.commandTimeoutMaxMs);
  const commandId = commandIdFor(s.convId, key);
  const clean = commandEnvironment(process.env, await registryKeyNames(s.deps.root), commandId);
  // Run by an allow-list, not a person: git without the programs a repository's files can name.
  const env = hardened ? hardenedEnvironment(clean, hardened.gitOverrides) : clean;
  const signal = AbortSignal.any([s.stopController.signal, s.agentSignal(agentId).signal]);
  let pending = "";
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (!pending) return;
    s.publish({ type: "command_output", agent_id: agentId, tool_call_id: toolCallId, text: pending });
    pending = "";
  };
  s.setActivity(agentId, { kind: "run", target: summarize(command, 120) });
  await s.emitNow({ type: "event", from: agentParty(agentId), to: SYSTEM_PARTY, payload: { command, cwd, timeout_ms: timeoutMs }, action: "run_command", resource: `command:${summarize(command, 120)}`, status: "started" });
  const result = await runCommand({
    command,
    cwd,
    env,
    timeoutMs,
    graceMs: s.limits.commandKillGraceMs,
    maxOutputChars: Math.max(100, s.limits.toolOutputMax - RESULT_OVERHEAD),
    signal,
    onOutput: (text) => {
      pending += text;
      timer ??= setTimeout(flush, LIVE_FLUSH_MS);
    },
  });
  if (timer) clearTimeout(timer);
  flush();
  const status = result.error ? "failed" : result.timed_out ? "timed_out" : result.stopped ? "stopped" : result.exit_code === 0 ? "ok" : "failed";
  await s.emitNow({
    type: "event",
    from: agentParty(agentId),
    to: SYSTEM_PARTY,
    payload: { command, cwd, exit_code: result.exit_code, signal: result.signal, timed_out: result.timed_out, stopped: result.stopped, duration_ms: result.duration_ms, output_truncated: result.output_truncated, ...(result.error ? { error: result.error } : {}) },
    action: "run_command",
    resource: `command:${summarize(command, 120)}`,
    status,
  });
  return JSON.stringify(result);
}

/** After a crash: ends what an interrupted command of `key` left running. */
export function killLeftovers(s: TeamState, key: string): Promise<number> {
  return killLeftoverCommand(commandIdFor(s.convId, key));
}

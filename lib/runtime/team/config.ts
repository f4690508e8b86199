/**
 * Hard caps and limits of the team runtime, enforced in code (never left to a model). Each can
 * be set by an environment variable; defaults follow the issue: 8 sub-agents per conversation,
 * 30 model calls per agent per task, and sub-agents cannot create sub-agents (they have no tool
 * for it, and the executor refuses it if a model asks anyway).
 */

/** Caps and limits in force. */
export interface RuntimeLimits {
  /** Sub-agents one conversation may create (`ASTRION_MAX_AGENTS`, default 8). */
  maxAgents: number;
  /** Model calls one agent (or the leader) may make for one task (`ASTRION_MAX_CALLS_PER_TASK`, default 30). */
  maxCallsPerTask: number;
  /** Characters of one tool result sent to a model; a longer one is shaped to fit, JSON kept valid (`ASTRION_TOOL_OUTPUT_MAX`, default 12000, at least 200). */
  toolOutputMax: number;
  /** Pause before a woken leader calls its model, so reports arriving together are handled in one turn (ms). */
  leaderBatchMs: number;
  /** `run_command`'s deadline when the call names none (`ASTRION_COMMAND_TIMEOUT_S`, default 120 s). */
  commandTimeoutMs: number;
  /** The longest deadline a call may ask for (`ASTRION_COMMAND_TIMEOUT_MAX_S`, default 1800 s). */
  commandTimeoutMaxMs: number;
  /** Between SIGTERM and SIGKILL of a command's process group (`ASTRION_COMMAND_KILL_GRACE_MS`, default 2000). */
  commandKillGraceMs: number;
  /** Token budgets of the context slices (`ASTRION_BUDGET_GLOBAL` 500, `ASTRION_BUDGET_SCENE` 3000, `ASTRION_BUDGET_PRIVATE` 1000). */
  budgets: { global: number; scene: number; private: number };
}

function intFromEnv(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min ? n : fallback;
}

/** The limits from the environment. */
export function limitsFromEnv(env: Record<string, string | undefined> = process.env): RuntimeLimits {
  return {
    maxAgents: intFromEnv(env, "ASTRION_MAX_AGENTS", 8, 1),
    maxCallsPerTask: intFromEnv(env, "ASTRION_MAX_CALLS_PER_TASK", 30, 1),
    toolOutputMax: intFromEnv(env, "ASTRION_TOOL_OUTPUT_MAX", 12_000, 200),
    leaderBatchMs: intFromEnv(env, "ASTRION_LEADER_BATCH_MS", 60, 0),
    commandTimeoutMaxMs: intFromEnv(env, "ASTRION_COMMAND_TIMEOUT_MAX_S", 1800, 1) * 1000,
    commandTimeoutMs: Math.min(intFromEnv(env, "ASTRION_COMMAND_TIMEOUT_S", 120, 1), intFromEnv(env, "ASTRION_COMMAND_TIMEOUT_MAX_S", 1800, 1)) * 1000,
    commandKillGraceMs: intFromEnv(env, "ASTRION_COMMAND_KILL_GRACE_MS", 2000, 0),
    budgets: {
      global: intFromEnv(env, "ASTRION_BUDGET_GLOBAL", 500, 50),
      scene: intFromEnv(env, "ASTRION_BUDGET_SCENE", 3000, 200),
      private: intFromEnv(env, "ASTRION_BUDGET_PRIVATE", 1000, 50),
    },
  };
}

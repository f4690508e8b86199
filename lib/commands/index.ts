/**
 * Public face of command execution (`run_command`): reading a command line (argv or shell),
 * allow-list matching, the environment a command gets, output kept within a budget, and the
 * runner itself (server only: import it from `@/lib/commands/run`).
 */
export { parseCommandLine, type ParsedCommand } from "./parse";
export { commandAllowed, normalizeCommandText, toCommandEntry, wildcardMatch, type AllowedPart, type CommandAllowance, type CommandEntry } from "./allow-list";
export { commandKind, gitSubcommand, lineKind, type CommandKind } from "./classify";
export { COMMAND_ID_VARIABLE, commandEnvironment, isWithheldVariable } from "./env";
export { elidedMarker, OutputCollector } from "./output";

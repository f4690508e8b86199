/**
 * Public face of command execution (`run_command`): reading a command line (argv or shell),
 * allow-list matching and the environment a command gets. The output kept within a budget and the
 * runner itself are imported from their modules (`@/lib/commands/output`, and the server-only
 * `@/lib/commands/run`).
 */
export { parseCommandLine } from "./parse";
export { commandAllowed, toCommandEntry, wildcardMatch, type AllowedPart } from "./allow-list";
export { commandKind, gitSubcommand } from "./classify";
export { commandEnvironment } from "./env";

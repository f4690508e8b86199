import "server-only";
/**
 * Runs one command as a real process in its own process group: an argv directly when the line
 * needs no shell, else `/bin/sh -c`. The working directory is the folder given (the caller's
 * project folder, never a path from the command). Output is streamed to `onOutput` and kept
 * within a budget (head and tail); a deadline or an abort ends the whole process group (SIGTERM,
 * then SIGKILL after a grace period), and whatever the command left running in its group when
 * it exits is killed too. A process that left the group (`setsid`, a daemon) is found by the
 * command's environment marker ({@link COMMAND_ID_VARIABLE}, when `env` carries one) and killed
 * as the command ends; one that also cleared its environment is not followed.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { COMMAND_ID_VARIABLE } from "./env";
import { OutputCollector } from "./output";
import { parseCommandLine } from "./parse";

/** What {@link runCommand} needs. */
export interface RunCommandInput {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputChars: number;
  /** Aborting it (Stop, a terminated agent) kills the command's process group. */
  signal?: AbortSignal;
  /** Live output, as it arrives (stdout and stderr interleaved). */
  onOutput?: (text: string) => void;
  /** Milliseconds between SIGTERM and SIGKILL (default 2000). */
  graceMs?: number;
}

/** What a command did; this is the tool's result. */
export interface CommandResult {
  command: string;
  cwd: string;
  /** `argv` (run directly) or `shell` (through /bin/sh -c). */
  mode: "argv" | "shell";
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** Ended by Stop (or the agent's termination) before it finished. */
  stopped: boolean;
  duration_ms: number;
  output: string;
  output_truncated: boolean;
  /** Why it could not start (e.g. `command not found: foo`). */
  error?: string;
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Process groups of commands still running; killed when the server exits. */
const liveGroups = new Set<number>();
let exitHooked = false;

/**
 * A command's group is its own (so a timeout can end all of it), which also means the server's
 * death would not end it: a clean exit (SIGTERM, Ctrl-C: the boot's handler calls
 * `process.exit`) kills every group still running. A SIGKILL skips this; the next start kills
 * the leftovers by their marker ({@link killLeftoverCommand}).
 */
function track(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const group of liveGroups) killGroup(group, "SIGKILL");
  });
}

/** Runs `command` and resolves when it and its process group are done. Never rejects. */
export function runCommand(input: RunCommandInput): Promise<CommandResult> {
  const started = Date.now();
  const parsed = parseCommandLine(input.command);
  const mode = parsed.needsShell ? "shell" : "argv";
  const output = new OutputCollector(input.maxOutputChars);
  const base = { command: input.command, cwd: input.cwd, mode } as const;
  if (parsed.error) {
    return Promise.resolve({ ...base, exit_code: null, signal: null, timed_out: false, stopped: false, duration_ms: 0, output: "", output_truncated: false, error: `cannot run: ${parsed.error}` });
  }
  const [file, ...args] = parsed.needsShell ? ["/bin/sh", "-c", input.command] : parsed.parts[0]!;
  return new Promise((resolve) => {
    let timedOut = false;
    let exitSeen = false;
    let stopped = false;
    let spawnError: string | undefined;
    let exit: { code: number | null; signal: string | null } = { code: null, signal: null };
    const child = spawn(file!, args, { cwd: input.cwd, env: input.env as NodeJS.ProcessEnv, detached: true, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    const pgid = child.pid;
    if (pgid !== undefined) track(pgid);
    let killTimer: NodeJS.Timeout | undefined;
    const end = (why: "timeout" | "stop") => {
      if (pgid === undefined || exitSeen) return;
      if (why === "timeout") timedOut = true;
      else stopped = true;
      killGroup(pgid, "SIGTERM");
      killTimer ??= setTimeout(() => killGroup(pgid, "SIGKILL"), input.graceMs ?? 2000);
    };
    const deadline = setTimeout(() => end("timeout"), input.timeoutMs);
    const onAbort = () => end("stop");
    if (input.signal?.aborted) queueMicrotask(onAbort);
    else input.signal?.addEventListener("abort", onAbort, { once: true });
    const take = (chunk: string) => {
      output.add(chunk);
      input.onOutput?.(chunk);
    };
    child.stdout.setEncoding("utf8").on("data", take);
    child.stderr.setEncoding("utf8").on("data", take);
    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError = error.code === "ENOENT" ? `command not found: ${file}` : error.code === "EACCES" ? `permission denied: ${file}` : error.message;
    });
    // Processes that left the group still hold the output pipes open ("close" waits for them).
    const marker = input.env[COMMAND_ID_VARIABLE];
    let sweep: Promise<number> = Promise.resolve(0);
    child.on("exit", (code, signal) => {
      exitSeen = true;
      exit = { code, signal };
      // What the command left running in its group (a background `sleep &`) ends with it, and so
      // does what left the group (`setsid sleep &`) but still carries the command's marker.
      if (pgid !== undefined) killGroup(pgid, "SIGKILL");
      if (marker) sweep = killLeftoverCommand(marker);
    });
    // The answer waits for the sweep of leftovers, whatever became of it.
    child.on("close", () => void sweep.catch(() => 0).then(() => {
      if (pgid !== undefined) liveGroups.delete(pgid);
      clearTimeout(deadline);
      if (killTimer) clearTimeout(killTimer);
      input.signal?.removeEventListener("abort", onAbort);
      resolve({
        ...base,
        exit_code: exit.code,
        signal: exit.signal,
        timed_out: timedOut,
        stopped,
        duration_ms: Date.now() - started,
        output: output.text(),
        output_truncated: output.truncated,
        ...(spawnError ? { error: spawnError } : {}),
      });
    }));
  });
}

/**
 * Kills the processes a command of a server that died left running: those whose environment
 * carries `AGENT_COMMAND_ID=<commandId>` (Linux `/proc`; elsewhere nothing is found). The
 * marker, not a recorded pid, identifies them, so a reused pid is never hit. Returns how many.
 */
export async function killLeftoverCommand(commandId: string): Promise<number> {
  const marker = `${COMMAND_ID_VARIABLE}=${commandId}`;
  let entries: string[];
  try {
    entries = await fs.readdir("/proc");
  } catch {
    return 0;
  }
  let killed = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = await fs.readFile(`/proc/${entry}/environ`, "utf8");
    } catch {
      continue;
    }
    if (!environ.split("\0").includes(marker)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

/**
 * The runner on real processes: argv or shell, the working directory, the environment, the
 * deadline killing the whole process group, an abort, and the output cap.
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand } from "./run";

const dir = () => realpathSync(mkdtempSync(path.join(os.tmpdir(), "astrion-run-")));
const base = { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutMs: 20_000, maxOutputChars: 4000, graceMs: 300 };

/** Whether a process still runs: a zombie (killed, not yet reaped by an init that may never reap it) does not. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

/**
 * Whether `pid` still lives 2 s after a SIGKILL was sent to it: the signal is delivered when the
 * process next runs, which on a loaded machine is not at once.
 */
async function survives(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 2000 && alive(pid); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  return alive(pid);
}

describe("runCommand", () => {
  it("runs an argv directly and a line with operators through the shell, always in the folder given", async () => {
    const cwd = dir();
    const plain = await runCommand({ ...base, command: "pwd", cwd });
    expect(plain).toMatchObject({ mode: "argv", exit_code: 0, cwd, timed_out: false });
    expect(plain.output.trim()).toBe(cwd);
    const shell = await runCommand({ ...base, command: "cd .. && pwd", cwd });
    expect(shell.mode).toBe("shell");
    expect(shell.output.trim()).toBe(path.dirname(cwd));
    // The next command starts in the folder again.
    expect((await runCommand({ ...base, command: "pwd", cwd })).output.trim()).toBe(cwd);
  });

  it("reports the exit code, and a command that is not found", async () => {
    const cwd = dir();
    expect(await runCommand({ ...base, command: "sh -c 'exit 3'", cwd })).toMatchObject({ exit_code: 3, mode: "argv" });
    const missing = await runCommand({ ...base, command: "no-such-command-xyz", cwd });
    expect(missing.error).toBe("command not found: no-such-command-xyz");
  });

  it("passes exactly the environment given", async () => {
    const r = await runCommand({ ...base, env: { ...base.env, ONLY_THIS: "1" }, command: "env", cwd: dir() });
    expect(r.output).toMatch(/^ONLY_THIS=1$/m);
    expect(r.output).not.toMatch(/^HOME=/m);
  });

  it("kills the whole process group at the deadline: a sleep grandchild stays killed", async () => {
    const cwd = dir();
    const r = await runCommand({ ...base, timeoutMs: 500, command: "sleep 30 & echo $! > child.pid; wait", cwd });
    expect(r.timed_out).toBe(true);
    expect(r.exit_code === null || r.signal !== null || r.exit_code !== 0).toBe(true);
    const pid = Number(readFileSync(path.join(cwd, "child.pid"), "utf8"));
    expect(pid).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive(pid)).toBe(false);
  });

  it("ends a command whose SIGTERM is ignored with SIGKILL after the grace period", async () => {
    const r = await runCommand({ ...base, timeoutMs: 300, graceMs: 300, command: "trap '' TERM; sleep 30", cwd: dir() });
    expect(r).toMatchObject({ timed_out: true, signal: "SIGKILL" });
  });

  it("kills what a finished command left running in its group", async () => {
    const cwd = dir();
    const r = await runCommand({ ...base, command: "sleep 30 > /dev/null 2>&1 & echo $! > child.pid", cwd });
    expect(r.exit_code).toBe(0);
    const pid = Number(readFileSync(path.join(cwd, "child.pid"), "utf8"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive(pid)).toBe(false);
  });

  it("kills what left the group (setsid) by the command's marker: at the deadline, and when the command ends holding the output open", async () => {
    const marked = (id: string) => ({ ...base.env, AGENT_COMMAND_ID: `test-${process.pid}-${id}` });
    const cwd = dir();
    // The deadline must come after the shell wrote the pid: on a loaded machine starting it can take most of a second.
    const timedOut = await runCommand({ ...base, env: marked("a"), timeoutMs: 3000, command: "setsid sleep 30 > /dev/null 2>&1 & echo $! > escaped.pid; sleep 30", cwd });
    expect(timedOut.timed_out).toBe(true);
    const first = Number(readFileSync(path.join(cwd, "escaped.pid"), "utf8"));
    expect(first).toBeGreaterThan(0);
    expect(await survives(first)).toBe(false);
    // This one keeps stdout open: without the sweep the command would never be reported done.
    const finished = await runCommand({ ...base, env: marked("b"), command: "setsid sleep 30 & echo $! > escaped.pid", cwd });
    expect(finished.exit_code).toBe(0);
    const second = Number(readFileSync(path.join(cwd, "escaped.pid"), "utf8"));
    expect(second).not.toBe(first);
    expect(await survives(second)).toBe(false);
  });

  it("stops on an abort and says so", async () => {
    const controller = new AbortController();
    const cwd = dir();
    const running = runCommand({ ...base, command: "touch started; sleep 30", cwd, signal: controller.signal });
    while (!existsSync(path.join(cwd, "started"))) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    expect(await running).toMatchObject({ stopped: true, timed_out: false });
  });

  it("caps the output, head and tail kept, and streams it live", async () => {
    const chunks: string[] = [];
    const r = await runCommand({ ...base, maxOutputChars: 200, command: "seq 1 5000", cwd: dir(), onOutput: (t) => chunks.push(t) });
    expect(r.output_truncated).toBe(true);
    expect(r.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(r.output.trimEnd().endsWith("4999\n5000")).toBe(true);
    expect(r.output).toMatch(/characters of output elided/);
    expect(chunks.join("").split("\n").filter(Boolean)).toHaveLength(5000);
  });
});

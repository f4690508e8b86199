/**
 * mcp.json changed by another process (another instance sharing the data folder, or a hand edit):
 * a running server's next use notices within a second, without reading the file on every call,
 * and starts the server anew from its new entry, or stops it when the entry is gone. A real stdio
 * server (test/helpers/mcp-argv-server.ts, which tells its argv) is started by the manager.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { mcpFailureReason, McpManager } from "./manager";
import { mcpLimitsFromEnv } from "./config";
import { until } from "@/test/helpers/wait";

const root = mkdtempSync(path.join(os.tmpdir(), "astrion-unit-mcp-shared-"));
const SERVER = path.join(__dirname, "..", "..", "test", "helpers", "mcp-argv-server.ts");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Writes mcp.json as another writer of the data folder does: a temporary file renamed over it. */
function writeElsewhere(servers: Record<string, unknown>): void {
  const tmp = path.join(root, "mcp.json.elsewhere");
  writeFileSync(tmp, JSON.stringify({ mcpServers: servers }));
  renameSync(tmp, path.join(root, "mcp.json"));
}

const argvServer = (arg: string) => ({ command: process.execPath, args: ["--no-warnings", SERVER, arg] });

async function argvOf(manager: McpManager): Promise<string[]> {
  const answer = await manager.call(root, "conv_1", "argv", "whoami", {});
  return (answer.structuredContent as { argv: string[] }).argv;
}

describe("mcp.json changed by another process", () => {
  it("restarts a running server from its changed entry, stops a removed one, and reads the file only when it moved", async () => {
    writeElsewhere({ argv: argvServer("one") });
    const manager = new McpManager(mcpLimitsFromEnv({}), { recheckMs: 200 });
    try {
      expect(await argvOf(manager)).toEqual(["one"]);
      const pid = manager.status("argv").processes[0]?.pid;
      expect(pid).toBeGreaterThan(0);

      // The file was just written (its stamp is "racy"): it is read once more a check later, then trusted.
      await new Promise((r) => setTimeout(r, 1100));
      await argvOf(manager);
      // Unchanged: the same process answers, and the file is not read again (a stat at most every 200 ms).
      const reads = vi.spyOn(fs, "readFile");
      for (let i = 0; i < 5; i++) expect(await argvOf(manager)).toEqual(["one"]);
      for (let round = 0; round < 3; round++) {
        await new Promise((r) => setTimeout(r, 250));
        for (let i = 0; i < 3; i++) await argvOf(manager);
      }
      expect(reads.mock.calls.filter(([file]) => String(file).endsWith("mcp.json"))).toEqual([]);
      reads.mockRestore();
      expect(manager.status("argv").processes[0]?.pid).toBe(pid);

      writeElsewhere({ argv: argvServer("two") });
      await until("the server started from its new entry", async () => (await argvOf(manager))[0] === "two", 2_000);
      expect(manager.status("argv").processes.map((p) => p.pid)).not.toContain(pid);
      expect(manager.status("argv").running_in).toBe(1);

      writeElsewhere({});
      const gone = await until(
        "the removed server refused",
        () => argvOf(manager).then(() => null, (error: unknown) => error as Error),
        2_000,
      );
      expect(mcpFailureReason(gone)).toBe("mcp_not_declared");
      expect(manager.status("argv").running_in).toBe(0);
    } finally {
      await manager.stopAll();
    }
  }, 60_000);
});

/**
 * Why an MCP server's tools cannot be listed, by code (lib/contracts/events.ts `MCP_NOTICE_REASONS`):
 * the runtime's notice words the code in the page's language and keeps the message as its detail.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { McpCallError } from "./connection";
import { McpManager, mcpFailureReason } from "./manager";

const root = mkdtempSync(path.join(os.tmpdir(), "astrion-unit-mcp-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function reasonOf(dataRoot: string, server: string): Promise<string> {
  const failed = await new McpManager().tools(dataRoot, "conv", server).then(
    () => null,
    (error: unknown) => error,
  );
  expect(failed).toBeInstanceOf(Error);
  return mcpFailureReason(failed);
}

describe("an MCP server that cannot be used", () => {
  it("says why by code: not declared, mcp.json broken, a variable unset, a command that does not start", async () => {
    const broken = path.join(root, "broken");
    mkdirSync(broken);
    writeFileSync(path.join(broken, "mcp.json"), "{ not json");
    expect(await reasonOf(broken, "files")).toBe("mcp_file_broken");

    const declared = path.join(root, "declared");
    mkdirSync(declared);
    writeFileSync(
      path.join(declared, "mcp.json"),
      JSON.stringify({ mcpServers: { vars: { command: "node", args: ["x.js"], env: { TOKEN: "${ASTRION_UNIT_UNSET_VARIABLE}" } }, gone: { command: path.join(root, "no-such-command") } } }),
    );
    expect(await reasonOf(declared, "nobody")).toBe("mcp_not_declared");
    expect(await reasonOf(declared, "vars")).toBe("mcp_missing_variable");
    expect(await reasonOf(declared, "gone")).toBe("mcp_start_failed");
  });

  it("names a failed call by its kind", () => {
    expect(mcpFailureReason(new McpCallError("timeout", "tools/list did not answer within 10 ms"))).toBe("mcp_timeout");
    expect(mcpFailureReason(new McpCallError("protocol", "bad answer"))).toBe("mcp_protocol");
    expect(mcpFailureReason(new McpCallError("connection", "closed"))).toBe("mcp_connection");
    expect(mcpFailureReason(new Error("something else"))).toBe("mcp_start_failed");
  });
});

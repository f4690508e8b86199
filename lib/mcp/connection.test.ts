/**
 * A real connection (the SDK's client over stdio) to test/helpers/mcp-flood-server.mjs, a server
 * that answers a call with one line as long as it is asked for.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpCallError, McpConnection } from "./connection";
import { MAX_MCP_MESSAGE_BYTES } from "./line-framer";

const FLOOD = path.resolve(__dirname, "..", "..", "test", "helpers", "mcp-flood-server.mjs");
const open: McpConnection[] = [];

async function connect(env: Record<string, string> = {}, onClosed: (unexpected: boolean) => void = () => undefined): Promise<McpConnection> {
  const conn = await McpConnection.open({ name: "flood", type: "stdio", command: process.execPath, args: [FLOOD], env, secrets: [] }, 20_000, onClosed);
  open.push(conn);
  return conn;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("McpConnection over stdio", () => {
  it("takes a message just under the limit whole", async () => {
    const conn = await connect();
    const answer = await conn.call("flood", { bytes: MAX_MCP_MESSAGE_BYTES - 100 }, 20_000);
    expect(answer.content[0]!.text).toHaveLength(MAX_MCP_MESSAGE_BYTES - 100);
    expect((await conn.call("ping", {}, 20_000)).content[0]!.text).toBe("pong");
  });

  it("ends the connection at a message over the limit, with an error that says so", async () => {
    let closed: boolean | null = null;
    const conn = await connect({}, (unexpected) => (closed = unexpected));
    const error = await conn.call("flood", { bytes: MAX_MCP_MESSAGE_BYTES + 1_000_000 }, 20_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpCallError);
    expect((error as McpCallError).kind).toBe("connection");
    expect((error as McpCallError).message).toMatch(/sent a message longer than 10485760 bytes .*its connection was ended/);
    await expect.poll(() => conn.live).toBe(false);
    // Ended by us, not by the person: a crash, which the manager restarts on the next call.
    expect(closed).toBe(true);
    expect(conn.describe(new Error("later"))).toMatch(/longer than 10485760 bytes/);
  });

  it("fails the start of a server whose first message is over the limit, saying why", async () => {
    const error = await connect({ FLOOD_AT_START: "1", FLOOD_BYTES: String(MAX_MCP_MESSAGE_BYTES + 1) })
      .then((conn) => conn.tools(20_000))
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/sent a message longer than 10485760 bytes/);
  });
});

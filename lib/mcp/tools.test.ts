import { describe, expect, it } from "vitest";
import { elisionMarker, grants, headTail, isMcpToolName, mcpGrants, mcpToolName, offeredMcpTool, parseMcpName, resultText, toolEffect } from "./tools";

describe("MCP tool names", () => {
  it("makes mcp__<server>__<tool> only when it is a valid function name (≤ 64, [A-Za-z0-9_-])", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("everything", "get-sum")).toBe("mcp__everything__get-sum");
    expect(mcpToolName("fs", "x".repeat(55))).toBe(`mcp__fs__${"x".repeat(55)}`);
    expect(mcpToolName("fs", "x".repeat(56))).toBeNull();
    expect(mcpToolName("fs", "read.file")).toBeNull();
    expect(mcpToolName("fs", "读取")).toBeNull();
  });

  it("splits names at the first __ after the server (server names never hold one)", () => {
    expect(parseMcpName("mcp__github__create_issue")).toEqual({ server: "github", tool: "create_issue" });
    expect(parseMcpName("mcp__my_srv__a__b")).toEqual({ server: "my_srv", tool: "a__b" });
    expect(parseMcpName("mcp__github")).toEqual({ server: "github", tool: null });
    expect(parseMcpName("mcp__github__")).toBeNull();
    expect(parseMcpName("mcp__")).toBeNull();
    expect(parseMcpName("read_file")).toBeNull();
    expect(isMcpToolName("mcp__github")).toBe(false);
    expect(isMcpToolName("mcp__github__x")).toBe(true);
  });

  it("reaches a tool only by a name it can be offered under", () => {
    expect(offeredMcpTool("mcp__github__create_issue")).toEqual({ server: "github", tool: "create_issue" });
    expect(offeredMcpTool("mcp__my_srv__a__b")).toEqual({ server: "my_srv", tool: "a__b" });
    expect(offeredMcpTool(`mcp__fs__${"x".repeat(55)}`)).toEqual({ server: "fs", tool: "x".repeat(55) });
    // Skipped when offered (mcpToolName gives null for them), so not reachable by name either.
    expect(offeredMcpTool(`mcp__fs__${"x".repeat(56)}`)).toBeNull();
    expect(offeredMcpTool("mcp__fs__read.file")).toBeNull();
    expect(offeredMcpTool("mcp__fs__读取")).toBeNull();
    expect(offeredMcpTool("mcp__fs__read file")).toBeNull();
    expect(offeredMcpTool("mcp__fs")).toBeNull();
    expect(offeredMcpTool("read_file")).toBeNull();
  });

  it("reads only readOnlyHint === true as read", () => {
    expect(toolEffect({ readOnlyHint: true })).toBe("read");
    expect(toolEffect({ readOnlyHint: "true" })).toBe("write");
    expect(toolEffect({ readOnlyHint: false })).toBe("write");
    expect(toolEffect(undefined)).toBe("write");
  });
});

describe("mcpGrants", () => {
  it("grants whole servers from mcp_servers and mcp__<server>, single tools from mcp__<server>__<tool>", () => {
    const g = mcpGrants({ mcp_servers: ["github"], tools: ["Read", "mcp__fs__read_file", "mcp__fs__list", "mcp__db", "mcp__db__query"] });
    expect(g.get("github")).toBe("all");
    expect(g.get("db")).toBe("all");
    expect(grants(g.get("fs"), "read_file")).toBe(true);
    expect(grants(g.get("fs"), "write_file")).toBe(false);
    expect(grants(g.get("nope"), "x")).toBe(false);
    expect(mcpGrants({}).size).toBe(0);
  });
});

describe("resultText", () => {
  it("joins text blocks and describes the others", () => {
    expect(resultText({ content: [{ type: "text", text: "a" }, { type: "image", mimeType: "image/png", data: "AAAA" }, { type: "resource_link", uri: "x://y", name: "y" }] })).toBe("a\n[image image/png, 3 bytes, not shown]\n[resource link x://y (y)]");
    expect(resultText({ content: [], structuredContent: { t: 1 } })).toBe('{"t":1}');
  });
});

describe("headTail", () => {
  it("keeps the head and the tail within the cap, the middle elided with a marker", () => {
    const text = `HEAD${"x".repeat(10_000)}TAIL`;
    const r = headTail(text, 500);
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(500);
    expect(r.text.startsWith("HEAD")).toBe(true);
    expect(r.text.endsWith("TAIL")).toBe(true);
    expect(r.text).toMatch(/…\[\d+ characters omitted\]…/);
    expect(headTail("short", 500)).toEqual({ text: "short", truncated: false });
    expect(elisionMarker(5)).toContain("5 characters omitted");
  });

  it("never splits a surrogate pair", () => {
    const r = headTail("😀".repeat(1000), 300);
    expect(r.text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(r.text).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

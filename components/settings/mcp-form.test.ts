import { describe, expect, it } from "vitest";
import { MASK } from "@/lib/mcp/config";
import { configFromForm, EMPTY_MCP_FORM, formFromView } from "./mcp-form";

describe("the MCP server form", () => {
  it("builds a stdio entry: args one per line, env NAME=value", () => {
    const r = configFromForm({ ...EMPTY_MCP_FORM, name: "ev", command: " node ", args: "a\n\n b c ", env: "TOKEN=${TOKEN}\nX=a=b" });
    expect(r).toEqual({ ok: true, config: { command: "node", args: ["a", " b c "], env: { TOKEN: "${TOKEN}", X: "a=b" } } });
  });

  it("builds an http entry with headers Name: value", () => {
    expect(configFromForm({ ...EMPTY_MCP_FORM, type: "http", url: "http://127.0.0.1:1/mcp", headers: "Authorization: Bearer ${T}" })).toEqual({ ok: true, config: { type: "http", url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${T}" } } });
  });

  it("names the line it cannot read, and the schema's problem", () => {
    expect(configFromForm({ ...EMPTY_MCP_FORM, command: "x", env: "OK=1\nnot a pair" })).toEqual({ ok: false, problem: { field: "env", line: 2 } });
    const r = configFromForm({ ...EMPTY_MCP_FORM, command: "" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/command/);
  });

  it("round-trips a masked server: masked values go back as they are", () => {
    const form = formFromView({ name: "gh", type: "stdio", command: "npx", args: ["-y"], env: { T: MASK }, status: { running_in: 0, processes: [], last_error: null, last_error_at: null, crashes: 0, tools: null, listed_at: null } });
    expect(configFromForm(form)).toEqual({ ok: true, config: { command: "npx", args: ["-y"], env: { T: MASK } } });
  });
});

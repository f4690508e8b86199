import { describe, expect, it } from "vitest";
import { SHARED_CONTEXT_TOOL_ARGS } from "@/lib/shared-context/tool-specs";
import { maxArgumentChars, parseToolArguments } from "@/lib/tools";
import { AGENT_TOOL_ARGS, LEADER_TOOL_ARGS } from "./index";

describe("tool arguments: documented limits, bounded parsing", () => {
  it("accepts write_file content of exactly 1,000,000 characters and refuses one more", () => {
    const ok = parseToolArguments(AGENT_TOOL_ARGS.write_file, JSON.stringify({ path: "a.txt", content: "x".repeat(1_000_000) }));
    expect(ok.ok).toBe(true);
    const over = parseToolArguments(AGENT_TOOL_ARGS.write_file, JSON.stringify({ path: "a.txt", content: "x".repeat(1_000_001) }));
    expect(over).toMatchObject({ ok: false, error: expect.stringMatching(/content: .*1000000/) });
  });

  it("allows for JSON escaping: a value at its limit fits whatever its characters", () => {
    const escaped = JSON.stringify({ path: "a.txt", content: "\u0000".repeat(1_000_000) });
    expect(escaped.length).toBeGreaterThan(5_000_000);
    expect(parseToolArguments(AGENT_TOOL_ARGS.write_file, escaped).ok).toBe(true);
  });

  it("refuses arguments longer than the tool's limit before parsing them", () => {
    const max = maxArgumentChars(AGENT_TOOL_ARGS.report_to_leader);
    const huge = `{"summary":"${"x".repeat(max)}"}`;
    expect(parseToolArguments(AGENT_TOOL_ARGS.report_to_leader, huge)).toEqual({
      ok: false,
      error: `arguments refused: they are ${huge.length} characters; this tool accepts at most ${max}`,
    });
    // A 10 MB answer for a tool that takes no arguments costs a length check.
    expect(parseToolArguments(LEADER_TOOL_ARGS.list_agents, "[".repeat(10_000_000)).ok).toBe(false);
  });

  it("refuses deeply nested JSON without handing it to JSON.parse", () => {
    const deep = `{"query":"a","glob":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expect(parseToolArguments(AGENT_TOOL_ARGS.search_files, deep)).toMatchObject({ ok: false, error: expect.stringMatching(/more than 64 levels/) });
    expect(parseToolArguments(SHARED_CONTEXT_TOOL_ARGS.read_shared_context, `{"x":${"[".repeat(65)}${"]".repeat(65)}}`).ok).toBe(false);
  });

  it("derives each limit from the schema's longest values", () => {
    expect(maxArgumentChars(AGENT_TOOL_ARGS.write_file)).toBeGreaterThan(6 * 1_000_000);
    expect(maxArgumentChars(AGENT_TOOL_ARGS.write_file)).toBeLessThan(6 * 1_000_000 + 6 * 4096 + 8192);
    expect(maxArgumentChars(AGENT_TOOL_ARGS.ask_master)).toBeLessThan(maxArgumentChars(AGENT_TOOL_ARGS.report_to_leader));
    expect(maxArgumentChars(SHARED_CONTEXT_TOOL_ARGS.update_shared_context)).toBeGreaterThan(6 * 20_000);
  });
});

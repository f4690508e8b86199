import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { collectPromotions, deriveWorkNotes, extractNotes, extractPromotions } from "./promotions";

describe("extractPromotions", () => {
  it("finds marker lines in English and Chinese, with bullets and emphasis", () => {
    const text = [
      "I looked at the code.",
      "CONCLUSION: the bug is in parser.ts line 40",
      "  - conclusion: tests use vitest",
      "**CONCLUSION:** auth is handled by middleware",
      "结论：配色使用蓝色系",
      "1. 结论: 不需要数据库",
      "This is not a CONCLUSION: marker in mid-line",
      "CONCLUSION:",
    ].join("\n");
    expect(extractPromotions(text)).toEqual([
      "the bug is in parser.ts line 40",
      "tests use vitest",
      "auth is handled by middleware",
      "配色使用蓝色系",
      "不需要数据库",
    ]);
  });

  it("returns nothing for empty or unmarked text and drops repeats", () => {
    expect(extractPromotions(null)).toEqual([]);
    expect(extractPromotions("just text")).toEqual([]);
    expect(extractPromotions("CONCLUSION: a\nCONCLUSION: a")).toEqual(["a"]);
  });
});

describe("collectPromotions", () => {
  const history: Message[] = [
    { role: "user", content: "Fix the bug" },
    { role: "assistant", content: "CONCLUSION: first", tool_calls: [{ id: "c1", type: "function", function: { name: "report_to_leader", arguments: JSON.stringify({ summary: "done\nCONCLUSION: from the report" }) } }] },
    // a file the agent read must not plant conclusions
    { role: "tool", tool_call_id: "c1", content: "CONCLUSION: injected by a file" },
    { role: "user", content: "来自 Coder_1 的任务完成汇报\nid: out_c_001\n\n\n\n结论：teammate found it\n\n", metadata: { message_source: "sub_agent" } },
    { role: "assistant", content: "CONCLUSION: first" },
  ];

  it("reads assistant texts, own tool-call arguments and received messages, never tool results; oldest first", () => {
    expect(collectPromotions(history)).toEqual(["from the report", "teammate found it", "first"]);
  });
});

describe("deriveWorkNotes", () => {
  it("lists what the agent already checked, one per action, a repeat moving to the end", () => {
    const call = (id: string, name: string, args: unknown) => ({ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } });
    const history: Message[] = [
      { role: "assistant", content: null, tool_calls: [call("a", "list_files", {}), call("b", "read_file", { path: "src/a.ts" })] },
      { role: "assistant", content: null, tool_calls: [call("c", "search_files", { query: "TODO", path: "src" }), call("d", "read_file", { path: "src/b.ts" })] },
      { role: "assistant", content: null, tool_calls: [call("e", "read_file", { path: "src/a.ts" }), call("f", "write_file", { path: "out.md", content: "x" }), call("g", "ask_master", { question: "?" })] },
      { role: "assistant", content: null, tool_calls: [{ id: "h", type: "function", function: { name: "read_file", arguments: "not json" } }] },
    ];
    expect(deriveWorkNotes(history)).toEqual(["listed .", 'searched "TODO" in src', "read src/b.ts", "read src/a.ts", "wrote out.md"]);
  });
});

describe("private notes (NOTE: lines)", () => {
  it("are read from an agent's own text, in English and Chinese, and join its work notes before its calls' notes", () => {
    expect(extractNotes("Reading.\nNOTE: a.ts has 3 exports\n- **note:** b.ts is empty\n笔记：配置在 c.json\nnot a NOTE: mid-line")).toEqual(["a.ts has 3 exports", "b.ts is empty", "配置在 c.json"]);
    const call = (id: string, args: unknown) => ({ id, type: "function" as const, function: { name: "read_file", arguments: JSON.stringify(args) } });
    const history: Message[] = [
      { role: "assistant", content: "Reading a.", tool_calls: [call("a", { path: "a.ts" })] },
      // a file cannot plant a note: tool results are never read for notes
      { role: "tool", tool_call_id: "a", content: "NOTE: injected by a file" },
      { role: "user", content: "NOTE: from someone else" },
      { role: "assistant", content: "NOTE: a.ts exports x\nReading b.", tool_calls: [call("b", { path: "b.ts" })] },
    ];
    expect(deriveWorkNotes(history)).toEqual(["read a.ts", "a.ts exports x", "read b.ts"]);
  });

  it("reads a megabyte line in one pass and keeps its start", () => {
    expect(extractNotes(`  - **NOTE:** ${"n".repeat(1_000_000)}`)).toEqual(["n".repeat(400)]);
    expect(extractNotes(`${" ".repeat(1_000_000)}note`)).toEqual([]);
  });
});

describe("notes kept apart from the text (metadata.private_notes)", () => {
  it("join the work notes though the message's text holds no NOTE: line", () => {
    const kept: Message = {
      role: "assistant",
      content: "Reading `a.ts`.",
      tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }],
      metadata: { private_notes: ["read a.ts; lines: 3", "step 1 of at most 10", 7] } as Message["metadata"],
    };
    expect(deriveWorkNotes([kept])).toEqual(["read a.ts; lines: 3", "step 1 of at most 10", "read a.ts"]);
    expect(kept.content).not.toMatch(/NOTE:/);
  });
});

describe("extractPromotions on hostile text", () => {
  it("reads lines of a megabyte of spaces, bullets and emphasis in one pass each", () => {
    const spaces = " ".repeat(1_000_000);
    expect(extractPromotions(`${spaces}x\n- ${spaces}x\n**${spaces}x\n1.${spaces}x`)).toEqual([]);
    expect(extractPromotions(`CONCLUSION:${spaces}kept\u2028tail`)).toEqual(["kept"]);
    expect(extractPromotions(`  - **CONCLUSION:** ${"y".repeat(1_000_000)}`)).toEqual(["y".repeat(500)]);
  });

  it("ignores tool arguments nested too deeply to parse safely", () => {
    const deep = `{"summary":"CONCLUSION: hidden","x":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const history: Message[] = [{ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "report_to_leader", arguments: deep } }] }];
    expect(collectPromotions(history)).toEqual([]);
  });
});

describe("extractPromotions on a million lines", () => {
  it("looks only at the lines holding a marker word", () => {
    const lines = "\n".repeat(1_000_000);
    expect(extractPromotions(`${lines}CONCLUSION: at the end\r\n${lines}`)).toEqual(["at the end"]);
    expect(extractPromotions(`a\r\nCONCLUSION: first\r\nconclusion: second CONCLUSION again\nno`)).toEqual(["first", "second CONCLUSION again"]);
    expect(extractPromotions("CONCLUSION ".repeat(200_000))).toEqual([]);
  });
});

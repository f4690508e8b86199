import { describe, expect, it } from "vitest";
import { recoverToolCall } from "./tool-recovery";

const offered = new Set(["list_files", "report_to_leader"]);

describe("recoverToolCall", () => {
  it("recovers a well-formed call of an offered tool, with arguments or parameters, fenced or not", () => {
    expect(recoverToolCall('{"name": "list_files", "arguments": {"path": "."}}', offered)).toEqual({ name: "list_files", arguments: '{"path":"."}' });
    expect(recoverToolCall('  {"name":"report_to_leader","parameters":{"summary":"done"}}\n', offered)).toEqual({ name: "report_to_leader", arguments: '{"summary":"done"}' });
    expect(recoverToolCall('```json\n{"name": "list_files", "arguments": "{\\"path\\": \\"src\\"}"}\n```', offered)).toEqual({ name: "list_files", arguments: '{"path": "src"}' });
  });

  it("leaves everything else as text", () => {
    for (const text of [
      "Here is the plan.",
      '{"name": "delete_everything", "arguments": {}}',
      '{"name": "list_files"}',
      '{"name": "list_files", "arguments": {"path": "."}, "extra": 1}',
      '{"name": "list_files", "arguments": [1, 2]}',
      '{"name": "list_files", "arguments": "not json"}',
      'I will call {"name": "list_files", "arguments": {}} now',
      '[{"name": "list_files", "arguments": {}}]',
      '{"name": "list_files", "arguments": {"path": "."}',
      '{"name": 3, "arguments": {}}',
    ]) {
      expect(recoverToolCall(text, offered), text).toBeNull();
    }
    expect(recoverToolCall('{"name": "list_files", "arguments": {}}', new Set())).toBeNull();
  });
});

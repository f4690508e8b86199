import { describe, expect, it } from "vitest";
import { toPythonJson } from "./json";
import { MessagesFileText as Writer } from "./messages-json";

/** The writer's bytes as text, to compare with toPythonJson's. */
class MessagesFileText extends Writer {
  text(file: { messages: readonly unknown[] }): string {
    return this.bytes(file).toString("utf8");
  }
}

function msg(n: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { role: n % 2 ? "assistant" : "tool", content: `message ${n} 多智能体 "quoted" \\ back\nline\ttab \u0001`, message_id: `msg_${n}`, ...extra };
}

const header = { id: "20260101_000000_abcd", title: "T", created_at: "2026-01-01T00:00:00", updated_at: "2026-01-01T00:00:01" };

describe("MessagesFileText", () => {
  it("writes exactly what toPythonJson writes, whatever the messages hold", () => {
    const writer = new MessagesFileText();
    const odd = [
      msg(1, { tool_calls: [{ id: "c", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }], metadata: { message_source: "leader", visibility: "chat", agent_id: 3 } }),
      msg(2, { created_at: 1752251700, timestamp: [1, 2.5], tiny: 1e-7, big: 1e21, unsafe: 2 ** 60, neg: -0, list: [[], {}, [[]]], nested: { created_at: 3 } }),
      msg(3, { content: null, empty: "", object: {} }),
      msg(4, { content: "\u0000astrion-messages\u0000" }),
    ];
    for (const messages of [[], odd, [odd[0], odd[0]]]) {
      const file = { ...header, messages, token_statistics: { total: { prompt_tokens: 3 } }, metadata: { pending_inbox: [] } };
      expect(writer.text(file)).toBe(toPythonJson(file));
      // Written again from the kept texts: the same bytes.
      expect(writer.text(file)).toBe(toPythonJson(file));
    }
  });

  it("keeps the file's key order, with the messages wherever they are", () => {
    const writer = new MessagesFileText();
    const messages = [msg(1)];
    for (const file of [{ messages, ...header }, { id: "x", messages, title: "T" }, { messages }]) expect(writer.text(file)).toBe(toPythonJson(file));
  });

  it("falls back to the whole writer when the header holds its placeholder", () => {
    const file = { ...header, title: "\u0000astrion-messages\u0000", messages: [msg(1)] };
    expect(new MessagesFileText().text(file)).toBe(toPythonJson(file));
  });

  it("follows a file as a store changes it: new messages, a message replaced by a new object, a new header", () => {
    const writer = new MessagesFileText();
    let file: { updated_at: string; messages: Record<string, unknown>[] } = { updated_at: "a", messages: [msg(1), msg(2)] };
    expect(writer.text(file)).toBe(toPythonJson(file));
    file = { ...file, updated_at: "b", messages: [...file.messages, msg(3)] };
    expect(writer.text(file)).toBe(toPythonJson(file));
    file = { ...file, messages: [file.messages[0]!, { ...file.messages[1]!, content: "edited" }, file.messages[2]!] };
    expect(writer.text(file)).toBe(toPythonJson(file));
    expect(writer.text(file)).toContain('"content": "edited"');
    file = { ...file, messages: file.messages.slice(1) };
    expect(writer.text(file)).toBe(toPythonJson(file));
  });
});

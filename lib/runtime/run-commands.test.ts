/**
 * What the command path refuses before any run is touched (a command may come over the wire from
 * another instance, so the holder checks it as a route checks a body): an op that does not exist,
 * arguments its op's schema refuses, an author of the wrong shape. The engine is never reached.
 */
import { describe, expect, it } from "vitest";
import type { Engine } from "./engine";
import { RunCommands } from "./run-commands";
import type { RunCommand } from "./run-ops";

const untouched = new Proxy({} as Engine, {
  get(_target, key) {
    throw new Error(`the engine was used (${String(key)}) for a command that should have been refused`);
  },
});
const commands = new RunCommands(untouched, null);

async function refusal(command: unknown) {
  return commands.local("conv_20260101_000000_001", command as RunCommand).then(
    () => null,
    (error: { code: string; status: number; details?: unknown }) => ({ code: error.code, status: error.status, details: error.details }),
  );
}

describe("the command path's checks", () => {
  it("refuses an op that does not exist", async () => {
    expect(await refusal({ op: "format_disk", args: {} })).toMatchObject({ code: "bad_request", status: 400 });
    expect(await refusal({ op: "toString", args: {} })).toMatchObject({ code: "bad_request", status: 400 });
  });

  it("refuses arguments the op's schema refuses, naming the field", async () => {
    expect(await refusal({ op: "leader_message", args: { content: "   " } })).toMatchObject({ code: "validation_failed", status: 400, details: [expect.objectContaining({ path: "content" })] });
    expect(await refusal({ op: "answer", args: { agent_id: 2, question_id: "nope", answer: "Yes" } })).toMatchObject({ code: "validation_failed", details: [expect.objectContaining({ path: "question_id" })] });
    expect(await refusal({ op: "approval", args: { agent_id: 2, tool_call_id: "c1", decision: "deny", always: true } })).toMatchObject({ code: "validation_failed" });
  });

  it("refuses an author of the wrong shape", async () => {
    expect(await refusal({ op: "stop", args: {}, author: { name: 42 } })).toMatchObject({ code: "validation_failed", status: 400 });
  });
});

import { describe, expect, it } from "vitest";
import type { ChatResult } from "../types";
import { classify } from "./classify";
import type { Findings } from "./findings";
import type { ProbeFailure, StreamSeen } from "./observe";

const result = (over: Partial<ChatResult> = {}): ChatResult => ({ content: "", reasoning: "", tool_calls: [], usage: null, finish_reason: "stop", model: "m", ...over });
const seen = (over: Partial<StreamSeen> = {}, res: Partial<ChatResult> = {}): StreamSeen => ({ kind: "stream", chunks: 4, result: result(res), reasoningVia: null, idsMade: false, callsInFinalChunk: false, usage: false, ...over });
const call = (word = "ping", name = "astrion_probe") => ({ id: `c_${word}`, type: "function" as const, function: { name, arguments: JSON.stringify({ word }) } });
const calls = (n: number) => seen({}, { tool_calls: Array.from({ length: n }, (_, i) => call(`w${i}`)) });
const fail = (over: Partial<ProbeFailure>): ProbeFailure => ({ kind: "failed", reason: "http", status: 400, said: "no", ...over });

function findings(over: Partial<Findings> = {}): Findings {
  return {
    key: "k",
    url: "http://127.0.0.1:8000/v1",
    model: "m",
    thinkingStyle: "enable_thinking",
    provider: { profile: "vllm", source: "named", detail: "" },
    label: "vLLM",
    apiKey: { state: "none_needed" },
    timeoutMs: 1000,
    list: { kind: "listed", ids: ["m"], body: {} },
    stream: seen({ usage: true }),
    tool: calls(1),
    parallel: calls(2),
    switchOn: { chat_template_kwargs: { enable_thinking: true } },
    switchOff: { chat_template_kwargs: { enable_thinking: false } },
    thinkingOn: seen({ reasoningVia: "field" }),
    reasoningBack: false,
    ...over,
  };
}

const verdict = (f: Findings, check: string) => {
  const l = classify(f).lines.find((x) => x.check === check);
  return l ? `${l.status} ${l.message}` : "none";
};

describe("classify", () => {
  it("all green when everything works, in the checks' order", () => {
    const { lines, skipped } = classify(findings());
    expect(lines.map((l) => `${l.check}:${l.status}`)).toEqual(["server:green", "key:green", "model:green", "stream:green", "tool_call:green", "parallel_tool_calls:green", "thinking:green", "usage:green"]);
    expect(skipped).toEqual([]);
  });

  it("a server that is down is red with its fix and stops every other check", () => {
    const { lines, skipped } = classify(findings({ list: { kind: "down", said: "ECONNREFUSED" }, stream: undefined }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ check: "server", status: "red", text: 'Nothing answers at http://127.0.0.1:8000/v1 (ECONNREFUSED). Start the server, or fix "base_url" of "k" in models.json.' });
    expect(skipped).toHaveLength(7);
    expect(verdict(findings({ list: { kind: "timeout" } }), "server")).toBe("red doctor.server.timeout");
  });

  it("the key: missing, refused, required, accepted", () => {
    expect(verdict(findings({ apiKey: { state: "missing", env: "K_ENV" } }), "key")).toBe("red doctor.key.missing");
    expect(verdict(findings({ apiKey: { state: "set", env: "K_ENV" }, list: { kind: "http", status: 401, said: "bad key" } }), "key")).toBe("red doctor.key.refused");
    expect(verdict(findings({ list: { kind: "http", status: 401, said: "need key" } }), "key")).toBe("red doctor.key.required");
    expect(verdict(findings({ apiKey: { state: "set", env: "K_ENV" } }), "key")).toBe("green doctor.key.accepted");
  });

  it("a key typed in Settings → Models: accepted, refused, no longer stored", () => {
    expect(verdict(findings({ apiKey: { state: "stored" } }), "key")).toBe("green doctor.key.stored_accepted");
    expect(verdict(findings({ apiKey: { state: "stored" }, list: { kind: "http", status: 403, said: "bad key" } }), "key")).toBe("red doctor.key.stored_refused");
    expect(verdict(findings({ apiKey: { state: "stored_missing" } }), "key")).toBe("red doctor.key.stored_missing");
    expect(verdict(findings({ apiKey: { state: "stored" }, stream: fail({ status: 401 }) }), "stream")).toBe("red doctor.stream.key_refused_stored");
  });

  it("the model: listed (Ollama's :latest too), missing with the listed names, unlisted but answering", () => {
    const missing = classify(findings({ list: { kind: "listed", ids: ["a", "b"], body: {} } })).lines.find((l) => l.check === "model")!;
    expect(missing).toMatchObject({ status: "red", params: { names: "a, b" } });
    expect(verdict(findings({ model: "qwen3", list: { kind: "listed", ids: ["qwen3:latest"], body: {} } }), "model")).toBe("green doctor.model.listed");
    expect(verdict(findings({ list: { kind: "http", status: 404, said: "" } }), "model")).toBe("green doctor.model.unlisted");
    expect(verdict(findings({ list: { kind: "http", status: 404, said: "" }, stream: fail({ status: 404 }) }), "model")).toBe("red doctor.model.not_served");
  });

  it("the stream: refused, key refused on a call, timeout, no stream", () => {
    expect(verdict(findings({ stream: fail({ status: 500 }) }), "stream")).toBe("red doctor.stream.refused");
    expect(verdict(findings({ stream: fail({ status: 401 }) }), "stream")).toBe("red doctor.stream.key_refused");
    expect(verdict(findings({ stream: fail({ reason: "timeout" }) }), "stream")).toBe("red doctor.stream.timeout");
    expect(verdict(findings({ stream: fail({ reason: "no_stream" }) }), "stream")).toBe("red doctor.stream.no_stream");
  });

  it("the tool call: recovered, final chunk, ids made are amber; none, malformed and refusals red with their fix", () => {
    expect(verdict(findings({ tool: seen({}, { tool_calls: [call()], recovered_tool_calls: true }) }), "tool_call")).toBe("amber doctor.tool.recovered");
    expect(verdict(findings({ tool: seen({ callsInFinalChunk: true, idsMade: true }, { tool_calls: [call()] }) }), "tool_call")).toBe("amber doctor.tool.final_chunk_ids");
    expect(verdict(findings({ tool: seen({ callsInFinalChunk: true }, { tool_calls: [call()] }) }), "tool_call")).toBe("amber doctor.tool.final_chunk");
    expect(verdict(findings({ tool: seen({ idsMade: true }, { tool_calls: [call()] }) }), "tool_call")).toBe("amber doctor.tool.ids_made");
    expect(verdict(findings({ tool: seen({}, { content: "I cannot" }) }), "tool_call")).toBe("red doctor.tool.none.vllm");
    expect(verdict(findings({ provider: { profile: "llamacpp", source: "server", detail: "" }, tool: seen() }), "tool_call")).toBe("red doctor.tool.none.llamacpp");
    expect(verdict(findings({ provider: { profile: "generic", source: "default", detail: "" }, tool: seen() }), "tool_call")).toBe("red doctor.tool.none.other");
    const wrong = classify(findings({ tool: seen({}, { tool_calls: [call("x", "other")] }) })).lines.find((l) => l.check === "tool_call")!;
    expect(wrong).toMatchObject({ status: "red", message: "doctor.tool.malformed", params: { problem: 'called "other" instead of astrion_probe' } });
    const badArgs = { id: "c", type: "function" as const, function: { name: "astrion_probe", arguments: "{word:" } };
    expect(verdict(findings({ tool: seen({}, { tool_calls: [badArgs] }) }), "tool_call")).toBe("red doctor.tool.malformed");
    const flag = { server: "vLLM", flag: "--enable-auto-tool-choice --tool-call-parser <parser>" };
    expect(verdict(findings({ tool: fail({}), toolFlag: flag, toolRequired: calls(1) }), "tool_call")).toBe("red doctor.tool.auto_refused");
    expect(verdict(findings({ tool: fail({}), toolFlag: flag, toolRequired: fail({}) }), "tool_call")).toBe("red doctor.tool.flag");
    expect(verdict(findings({ tool: fail({}), toolFlag: null }), "tool_call")).toBe("red doctor.tool.refused");
  });

  it("parallel calls: asked for by the app is amber, one call red, a failure red", () => {
    expect(verdict(findings({ parallelUnasked: calls(1) }), "parallel_tool_calls")).toBe("amber doctor.parallel.asked");
    expect(verdict(findings({ parallelUnasked: calls(2) }), "parallel_tool_calls")).toBe("green doctor.parallel.ok");
    expect(verdict(findings({ parallel: calls(1) }), "parallel_tool_calls")).toBe("red doctor.parallel.one");
    expect(verdict(findings({ parallel: fail({}) }), "parallel_tool_calls")).toBe("red doctor.parallel.failed");
    expect(verdict(findings({ parallel: undefined }), "parallel_tool_calls")).toBe("none");
  });

  it("thinking: inline amber, sent back amber, not off / not on / refused back red, no switch and none asked green", () => {
    expect(verdict(findings({ thinkingOn: seen({ reasoningVia: "inline" }) }), "thinking")).toBe("amber doctor.thinking.inline");
    expect(verdict(findings({ reasoningBack: true, roundTrip: seen() }), "thinking")).toBe("amber doctor.thinking.sent_back");
    expect(verdict(findings({ reasoningBack: true, roundTrip: fail({}) }), "thinking")).toBe("red doctor.thinking.back_refused");
    expect(verdict(findings({ stream: seen({ reasoningVia: "field" }) }), "thinking")).toBe("red doctor.thinking.not_off");
    expect(verdict(findings({ thinkingOn: seen() }), "thinking")).toBe("red doctor.thinking.not_on");
    expect(verdict(findings({ thinkingOn: fail({}) }), "thinking")).toBe("red doctor.thinking.failed");
    expect(verdict(findings({ switchOn: {}, switchOff: {} }), "thinking")).toBe("green doctor.thinking.no_switch");
    expect(verdict(findings({ thinkingStyle: "none" }), "thinking")).toBe("green doctor.thinking.none_asked");
    expect(verdict(findings({ thinkingStyle: "none", stream: seen({ reasoningVia: "inline" }) }), "thinking")).toBe("amber doctor.thinking.thinks_anyway");
  });

  it("usage: always, only when asked, never", () => {
    expect(verdict(findings(), "usage")).toBe("green doctor.usage.always");
    expect(verdict(findings({ stream: seen(), tool: seen({ usage: true }, { tool_calls: [call()] }) }), "usage")).toBe("amber doctor.usage.asked");
    expect(verdict(findings({ stream: seen() }), "usage")).toBe("red doctor.usage.none");
    // Tools refused and no thinking switch: the plain answer asked for usage tells.
    const refused = { tool: fail({}), parallel: undefined, thinkingOn: undefined, stream: seen() };
    expect(verdict(findings(refused), "usage")).toBe("none");
    expect(verdict(findings({ ...refused, usageAsked: seen({ usage: true }) }), "usage")).toBe("amber doctor.usage.asked");
  });
});

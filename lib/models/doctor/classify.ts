/**
 * The connection doctor's verdicts: from what the probes showed (./findings.ts) to one line per
 * check, in order — green (works), amber (works with a workaround the app applies) or red (does
 * not; the line says the fix). A check whose probe did not run (an earlier red stopped the check)
 * has no line and is listed as skipped. Pure.
 */
import { DOCTOR_CHECKS, type DoctorLine } from "@/lib/contracts/http";
import type { MessageKey } from "@/lib/i18n";
import type { ProviderProfile } from "../schema";
import { line, type Findings } from "./findings";
import type { ProbeFailure, ProbeSeen, StreamSeen } from "./observe";
import { PROBE_TOOL } from "./probes";
import type { ModelListSeen } from "./transport";

const ok = (seen: ProbeSeen | undefined): seen is StreamSeen => seen?.kind === "stream";
const failed = (seen: ProbeSeen | undefined): seen is ProbeFailure => seen?.kind === "failed";
const statusOf = (seen: ProbeFailure) => seen.status ?? 0;
const json = (value: Record<string, unknown>) => (Object.keys(value).length ? JSON.stringify(value) : "{}");

function serverLine(f: Findings): DoctorLine {
  if (f.list.kind === "down") return line("server", "red", "doctor.server.down", { url: f.url, key: f.key, said: f.list.said });
  if (f.list.kind === "timeout") return line("server", "red", "doctor.server.timeout", { url: f.url, key: f.key, ms: f.timeoutMs });
  return line("server", "green", "doctor.server.ok", { url: f.url });
}

function keyLine(f: Findings, list: Exclude<ModelListSeen, { kind: "down" | "timeout" }>): DoctorLine {
  if (f.apiKey.state === "missing") return line("key", "red", "doctor.key.missing", { env: f.apiKey.env });
  if (f.apiKey.state === "stored_missing") return line("key", "red", "doctor.key.stored_missing", { key: f.key });
  if (list.kind === "http" && (list.status === 401 || list.status === 403)) {
    if (f.apiKey.state === "stored") return line("key", "red", "doctor.key.stored_refused", { status: list.status, url: f.url }, list.said);
    return f.apiKey.state === "set"
      ? line("key", "red", "doctor.key.refused", { env: f.apiKey.env, status: list.status, url: f.url }, list.said)
      : line("key", "red", "doctor.key.required", { key: f.key, status: list.status }, list.said);
  }
  if (f.apiKey.state === "stored") return line("key", "green", "doctor.key.stored_accepted");
  return f.apiKey.state === "set" ? line("key", "green", "doctor.key.accepted", { env: f.apiKey.env }) : line("key", "green", "doctor.key.none_needed");
}

/** True when the server lists `model` (Ollama's `qwen3` is its `qwen3:latest`). */
function listed(ids: readonly string[], model: string): boolean {
  return ids.includes(model) || (!model.includes(":") && ids.includes(`${model}:latest`));
}

function modelLine(f: Findings): DoctorLine | null {
  if (f.list.kind === "listed" && f.list.ids.length > 0) {
    if (listed(f.list.ids, f.model)) return line("model", "green", "doctor.model.listed", { model: f.model });
    const names = f.list.ids.slice(0, 12).join(", ") + (f.list.ids.length > 12 ? ", …" : "");
    return line("model", "red", "doctor.model.missing", { model: f.model, key: f.key, names });
  }
  // No list to read: the plain call tells.
  const status = f.list.kind === "http" ? f.list.status : 200;
  if (ok(f.stream)) return line("model", "green", "doctor.model.unlisted", { model: f.model, status });
  if (failed(f.stream) && f.stream.reason === "http" && (statusOf(f.stream) === 404 || statusOf(f.stream) === 400)) {
    return line("model", "red", "doctor.model.not_served", { model: f.model, key: f.key, status: statusOf(f.stream) }, f.stream.said);
  }
  return null;
}

function streamLine(f: Findings): DoctorLine | null {
  const seen = f.stream;
  if (!seen) return null;
  if (ok(seen)) return line("stream", "green", "doctor.stream.ok", { chunks: seen.chunks });
  if (seen.reason === "timeout") return line("stream", "red", "doctor.stream.timeout", { ms: f.timeoutMs, key: f.key });
  if (seen.reason === "no_stream") return line("stream", "red", "doctor.stream.no_stream", {}, seen.said);
  if (seen.reason === "down") return line("stream", "red", "doctor.stream.down", {}, seen.said);
  const status = statusOf(seen);
  if (status === 401 || status === 403) {
    if (f.apiKey.state === "stored" || f.apiKey.state === "stored_missing") return line("stream", "red", "doctor.stream.key_refused_stored", { status, url: f.url }, seen.said);
    return line("stream", "red", "doctor.stream.key_refused", { status, url: f.url, env: f.apiKey.state === "none_needed" ? "api_key_env" : f.apiKey.env }, seen.said);
  }
  return line("stream", "red", "doctor.stream.refused", { status, key: f.key }, seen.said);
}

const NO_TOOL_FIX: Partial<Record<ProviderProfile, MessageKey>> = {
  vllm: "doctor.tool.none.vllm",
  llamacpp: "doctor.tool.none.llamacpp",
  lmstudio: "doctor.tool.none.lmstudio",
  ollama: "doctor.tool.none.ollama",
};

/** What is wrong with the probe tool's calls in `seen`, or null when each is a well-formed call of it. */
function malformation(seen: StreamSeen): string | null {
  for (const call of seen.result.tool_calls) {
    if (call.function.name !== PROBE_TOOL.function.name) return `called "${call.function.name.slice(0, 60)}" instead of ${PROBE_TOOL.function.name}`;
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {
      return `arguments that are not JSON: ${call.function.arguments.slice(0, 60)}`;
    }
    if (typeof (args as { word?: unknown } | null)?.word !== "string") return `arguments without the string "word": ${call.function.arguments.slice(0, 60)}`;
  }
  return null;
}

/** The line of a stream that should hold tool calls: red when none or a malformed one came, else null. */
function callProblem(f: Findings, seen: StreamSeen): DoctorLine | null {
  if (seen.result.tool_calls.length === 0) return line("tool_call", "red", NO_TOOL_FIX[f.provider.profile as ProviderProfile] ?? "doctor.tool.none.other", {}, seen.result.content.slice(0, 200) || undefined);
  const problem = malformation(seen);
  return problem ? line("tool_call", "red", "doctor.tool.malformed", { problem }) : null;
}

function toolLine(f: Findings): DoctorLine | null {
  const seen = f.tool;
  if (!seen) return null;
  if (failed(seen)) {
    if (seen.reason === "timeout") return line("tool_call", "red", "doctor.tool.timeout", { ms: f.timeoutMs, key: f.key });
    const flag = f.toolFlag;
    if (flag && ok(f.toolRequired) && !callProblem(f, f.toolRequired)) return line("tool_call", "red", "doctor.tool.auto_refused", { server: flag.server, flag: flag.flag }, seen.said);
    if (flag) return line("tool_call", "red", "doctor.tool.flag", { server: flag.server, flag: flag.flag }, seen.said);
    return line("tool_call", "red", "doctor.tool.refused", { status: statusOf(seen) }, seen.said);
  }
  const problem = callProblem(f, seen);
  if (problem) return problem;
  if (seen.result.recovered_tool_calls) return line("tool_call", "amber", "doctor.tool.recovered");
  if (seen.callsInFinalChunk) return line("tool_call", "amber", seen.idsMade ? "doctor.tool.final_chunk_ids" : "doctor.tool.final_chunk");
  if (seen.idsMade) return line("tool_call", "amber", "doctor.tool.ids_made");
  return line("tool_call", "green", "doctor.tool.ok");
}

function parallelLine(f: Findings): DoctorLine | null {
  const seen = f.parallel;
  if (!seen) return null;
  if (failed(seen)) return line("parallel_tool_calls", "red", "doctor.parallel.failed", { status: statusOf(seen) }, seen.said);
  const calls = seen.result.tool_calls.length;
  if (calls < 2) return line("parallel_tool_calls", "red", "doctor.parallel.one", { n: calls });
  if (ok(f.parallelUnasked) && f.parallelUnasked.result.tool_calls.length < 2) return line("parallel_tool_calls", "amber", "doctor.parallel.asked", { label: f.label });
  return line("parallel_tool_calls", "green", "doctor.parallel.ok");
}

function thinkingLine(f: Findings): DoctorLine | null {
  const off = f.stream;
  if (!ok(off)) return null;
  const params = { on: json(f.switchOn), off: json(f.switchOff), key: f.key, profile: f.provider.profile, label: f.label, model: f.model };
  const thoughtOff = off.reasoningVia !== null;
  if (f.thinkingStyle === "none" || JSON.stringify(f.switchOn) === JSON.stringify(f.switchOff)) {
    if (thoughtOff) return line("thinking", "amber", "doctor.thinking.thinks_anyway", params);
    return f.thinkingStyle === "none" ? line("thinking", "green", "doctor.thinking.none_asked") : line("thinking", "green", "doctor.thinking.no_switch", params);
  }
  const on = f.thinkingOn;
  if (!on) return null;
  if (failed(on)) return line("thinking", "red", "doctor.thinking.failed", { ...params, status: statusOf(on) }, on.said);
  if (on.reasoningVia === null) return line("thinking", "red", "doctor.thinking.not_on", params);
  if (thoughtOff) return line("thinking", "red", "doctor.thinking.not_off", params);
  if (failed(f.roundTrip)) return line("thinking", "red", "doctor.thinking.back_refused", { ...params, status: statusOf(f.roundTrip) }, f.roundTrip.said);
  if (on.reasoningVia === "inline") return line("thinking", "amber", "doctor.thinking.inline", params);
  if (f.reasoningBack && ok(f.roundTrip)) return line("thinking", "amber", "doctor.thinking.sent_back", params);
  return line("thinking", "green", "doctor.thinking.switch", params);
}

function usageLine(f: Findings): DoctorLine | null {
  if (!ok(f.stream)) return null;
  if (f.stream.usage) return line("usage", "green", "doctor.usage.always");
  const asked = [f.tool, f.toolRequired, f.parallel, f.thinkingOn, f.roundTrip, f.usageAsked].filter(ok);
  if (asked.length === 0) return null;
  return asked.some((s) => s.usage) ? line("usage", "amber", "doctor.usage.asked") : line("usage", "red", "doctor.usage.none");
}

/** Every line the findings support, in the checks' order, and the checks left without one. */
export function classify(f: Findings): { lines: DoctorLine[]; skipped: DoctorLine["check"][] } {
  const server = serverLine(f);
  const lines: Array<DoctorLine | null> = [server];
  if (server.status !== "red" && f.list.kind !== "down" && f.list.kind !== "timeout") {
    lines.push(keyLine(f, f.list), modelLine(f), streamLine(f), toolLine(f), parallelLine(f), thinkingLine(f), usageLine(f));
  }
  const made = lines.filter((l): l is DoctorLine => l !== null);
  const have = new Set(made.map((l) => l.check));
  return { lines: made, skipped: DOCTOR_CHECKS.filter((c) => !have.has(c)) };
}

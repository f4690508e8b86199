import "server-only";
/**
 * Runs the connection doctor for one registry entry: resolves its key (./api-key.ts) and its
 * provider profile (the model registry's `ProviderGuesser`: named, base URL, or the server's
 * `/v1/models`), then sends the probes in the checks' order — `GET /models`, a plain stream, one
 * tool call, two in parallel, thinking on (off is the plain stream), the round trip when the
 * profile sends thinking back — stopping where a red line makes the rest meaningless. Bounded:
 * every request has its own timeout and the whole check a deadline that aborts whatever is open.
 */
import type { DoctorReport } from "@/lib/contracts/http";
import { resolveApiKey } from "../api-key";
import { displayUrl } from "../client";
import { quirksOf, type ResolvedProvider } from "../providers";
import { ProviderGuesser } from "../providers/guesser";
import type { ModelEntry, ProviderProfile } from "../schema";
import { classify } from "./classify";
import type { Findings } from "./findings";
import type { ProbeSeen } from "./observe";
import { PROBE_TOOL, probeBodies, type ProbeBodies } from "./probes";
import { listModels, sendProbe, type ProbeTarget } from "./transport";

/** Default timeout of each request, and of the whole check. */
const PROBE_TIMEOUT_MS = 15_000;
const TOTAL_TIMEOUT_MS = 60_000;
const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  /** Where keys are read (default `process.env`), as the model client reads them. */
  env?: Record<string, string | undefined>;
  /** A key typed in Settings → Models, by its `api_key_ref` (the key store). */
  storedKey?: (ref: string) => string | undefined;
  /** Each request's timeout (default: the entry's `timeouts.first_response_ms`, else 15 s). */
  probeTimeoutMs?: number;
  /** The whole check's deadline (default 60 s). */
  totalTimeoutMs?: number;
  /** Resolves the entry's profile (default: a new `ProviderGuesser`, so the server is asked afresh). */
  resolveProvider?: (entry: ModelEntry) => Promise<ResolvedProvider>;
}

const isStream = (seen: ProbeSeen | undefined) => seen?.kind === "stream";

/** Checks the connection of `entry` (registered as `key`); never rejects. */
export async function runDoctor(key: string, entry: ModelEntry, options: DoctorOptions = {}): Promise<DoctorReport> {
  const started = Date.now();
  const env = options.env ?? process.env;
  const timeoutMs = options.probeTimeoutMs ?? entry.timeouts?.first_response_ms ?? PROBE_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(options.totalTimeoutMs ?? TOTAL_TIMEOUT_MS);
  const baseUrl = entry.base_url ?? DEFAULT_BASE_URL;
  const apiKey = resolveApiKey(entry, env, options.storedKey);
  const target: ProbeTarget = { baseUrl, key: apiKey.state === "set" || apiKey.state === "stored" ? apiKey.value : undefined, timeoutMs, signal: deadline };
  const list = await listModels(target);
  const provider = await (options.resolveProvider ?? ((e: ModelEntry) => new ProviderGuesser({ env }).resolve(e)))(entry);
  const profile = provider.profile as ProviderProfile;
  const quirks = quirksOf(profile);
  const bodies = probeBodies(entry, profile);
  const f: Findings = {
    key,
    url: displayUrl(baseUrl),
    model: entry.model,
    thinkingStyle: entry.thinking_style,
    provider,
    label: quirks.label,
    apiKey: apiKey.state === "set" ? { state: "set", env: apiKey.env } : apiKey.state === "stored" ? { state: "stored" } : apiKey,
    timeoutMs,
    list,
    switchOn: bodies.switchOn,
    switchOff: bodies.switchOff,
    reasoningBack: bodies.reasoningBack,
  };
  const stopHere = list.kind === "down" || list.kind === "timeout" || apiKey.state === "missing" || apiKey.state === "stored_missing" || (list.kind === "http" && (list.status === 401 || list.status === 403));
  const modelMissing = list.kind === "listed" && list.ids.length > 0 && classify(f).lines.some((l) => l.check === "model" && l.status === "red");
  if (!stopHere && !modelMissing) {
    await probe(f, target, bodies, quirks.recoversTextToolCalls, quirks.serverFlag);
    // Usage as the app asks for it, when no probe that asked answered (tools refused, no thinking switch).
    const asked = [f.tool, f.toolRequired, f.parallel, f.thinkingOn, f.roundTrip].some(isStream);
    if (isStream(f.stream) && !asked && !deadline.aborted) f.usageAsked = await sendProbe(target, bodies.thinking("off"));
  }
  const { lines, skipped } = classify(f);
  return { model_key: key, provider, lines, skipped, ok: !lines.some((l) => l.status === "red"), ms: Date.now() - started };
}

/** The chat probes, in order; each later one only when the earlier ones leave it meaningful. */
async function probe(f: Findings, target: ProbeTarget, bodies: ProbeBodies, recovers: boolean, serverFlag: ReturnType<typeof quirksOf>["serverFlag"]): Promise<void> {
  const recover = recovers ? new Set([PROBE_TOOL.function.name]) : undefined;
  f.stream = await sendProbe(target, bodies.stream());
  if (!isStream(f.stream) || target.signal.aborted) return;
  f.tool = await sendProbe(target, bodies.tool(), recover);
  if (f.tool.kind === "failed" && f.tool.reason === "http") {
    f.toolFlag = serverFlag(f.tool.status, f.tool.said);
    if (f.toolFlag) f.toolRequired = await sendProbe(target, bodies.toolRequired(), recover);
  }
  const toolsWork = f.tool.kind === "stream" && f.tool.result.tool_calls.length > 0;
  // Refused "auto" but forced calls work (vLLM without --enable-auto-tool-choice): parallel calls are tried forced too.
  const forced = !toolsWork && f.toolRequired?.kind === "stream" && f.toolRequired.result.tool_calls.length > 0;
  if ((toolsWork || forced) && !target.signal.aborted) {
    f.parallel = await sendProbe(target, forced ? { ...bodies.parallel(), tool_choice: "required" } : bodies.parallel(), recover);
    if (bodies.asksParallel && isStream(f.parallel)) f.parallelUnasked = await sendProbe(target, bodies.parallel(false), recover);
  }
  const switchable = f.thinkingStyle !== "none" && JSON.stringify(f.switchOn) !== JSON.stringify(f.switchOff);
  if (!switchable || target.signal.aborted) return;
  f.thinkingOn = await sendProbe(target, bodies.thinking("on"));
  if (!f.reasoningBack || !toolsWork || target.signal.aborted) return;
  // The thinking of a turn that called a tool, sent back with the call's result, as a team's next call would.
  const first = await sendProbe(target, bodies.tool("on"), recover);
  const call = first.kind === "stream" ? first.result.tool_calls[0] : undefined;
  if (first.kind === "stream" && call) f.roundTrip = await sendProbe(target, bodies.roundTrip(call, first.result.reasoning), recover);
}

import "server-only";
/**
 * Looks for model servers on this computer: at start (in the background, never awaited by the
 * boot) and when a person asks, each port of 127.0.0.1 — and only 127.0.0.1 — is asked for its
 * model list (Ollama's `/api/tags` and the OpenAI-compatible `/v1/models`, at once), each request
 * cut after a short deadline, so a closed port or a server that never answers costs at most that.
 * The last look is kept for the Settings page and the new-conversation form. One per process, made
 * by the composition root.
 */
import { DEFAULT_DISCOVERY_PORTS, guessProvider, ollamaModels, openAIModels } from "./found-servers";
import type { DiscoveryReport, FoundServer } from "./schema";
import { textWithin } from "./bounded-body";

/** How long one request to a port may take, in milliseconds. */
const DEFAULT_PROBE_TIMEOUT_MS = 800;
/** How long a look's result is answered before the next request looks again. */
const REPORT_MAX_AGE_MS = 15_000;
/** A model list larger than this is not read. */
const MAX_LIST_BYTES = 1024 * 1024;

/** What to look at: the ports of 127.0.0.1 and the deadline of each request. */
export interface DiscoveryConfig {
  ports: readonly number[];
  timeoutMs: number;
}

/**
 * `ASTRION_DISCOVERY_PORTS`: a comma-separated list of ports (default 11434, 1234, 8000, 8080);
 * `off` (or an empty value) looks nowhere. Anything else that is not a port is ignored.
 */
export function discoveryConfigFromEnv(env: Record<string, string | undefined> = process.env): DiscoveryConfig {
  const raw = env.ASTRION_DISCOVERY_PORTS;
  const ports =
    raw === undefined
      ? [...DEFAULT_DISCOVERY_PORTS.keys()]
      : raw.trim().toLowerCase() === "off"
        ? []
        : [...new Set(raw.split(",").map((p) => Number(p.trim())).filter((p) => Number.isInteger(p) && p > 0 && p < 65536))];
  return { ports, timeoutMs: DEFAULT_PROBE_TIMEOUT_MS };
}

/** GET of a JSON document on 127.0.0.1, or null when the port is closed, slow, refuses or answers something else. */
async function getJson(port: number, pathname: string, timeoutMs: number): Promise<unknown> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${pathname}`, { signal: AbortSignal.timeout(timeoutMs), redirect: "error", headers: { accept: "application/json" } });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return null;
    }
    const text = await textWithin(res, MAX_LIST_BYTES);
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

/** The model server on `port` of 127.0.0.1 with its models, or null when none answers there. */
export async function probePort(port: number, timeoutMs: number): Promise<FoundServer | null> {
  const [tags, list] = await Promise.all([getJson(port, "/api/tags", timeoutMs), getJson(port, "/v1/models", timeoutMs)]);
  const base_url = `http://127.0.0.1:${port}/v1`;
  const fromTags = ollamaModels(tags);
  if (fromTags) return { provider: "ollama", base_url, port, models: fromTags };
  const fromList = openAIModels(list);
  if (fromList) return { provider: guessProvider(fromList.owners, port), base_url, port, models: fromList.ids };
  return null;
}

export class LocalDiscovery {
  readonly #config: DiscoveryConfig;
  #last: DiscoveryReport;
  #running: Promise<DiscoveryReport> | null = null;

  constructor(config: DiscoveryConfig) {
    this.#config = config;
    this.#last = { scanned_at: null, ports: [...config.ports], servers: [] };
  }

  /** Looks at every port now (a look already under way is shared) and keeps the result. */
  scan(): Promise<DiscoveryReport> {
    this.#running ??= (async () => {
      try {
        const found = await Promise.all(this.#config.ports.map((port) => probePort(port, this.#config.timeoutMs)));
        this.#last = { scanned_at: new Date().toISOString(), ports: [...this.#config.ports], servers: found.filter((s): s is FoundServer => s !== null) };
        return this.#last;
      } finally {
        this.#running = null;
      }
    })();
    return this.#running;
  }

  /**
   * The last look's result while it is recent; otherwise (none yet, or older than
   * {@link REPORT_MAX_AGE_MS}: a server may have started since) a new look, bounded like any other.
   */
  async report(now: number = Date.now()): Promise<DiscoveryReport> {
    const at = this.#last.scanned_at === null ? null : Date.parse(this.#last.scanned_at);
    if (at === null || now - at > REPORT_MAX_AGE_MS) return this.scan();
    return this.#last;
  }
}

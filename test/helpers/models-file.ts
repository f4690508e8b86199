/**
 * A data folder's `models.json` for tests: the built-in offline model and a `fake` entry pointing
 * at a fake OpenAI-compatible server (its key read from `FAKE_OPENAI_KEY`).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";

/** Options of {@link writeFakeModels}. */
export interface FakeModelsOptions {
  /** The registry's default key (`fake` unless said). */
  default?: "fake" | "offline";
  /** The fake entry's timeouts. */
  timeouts?: { idle_ms?: number; first_response_ms?: number };
}

/** Writes `<home>/models.json` with the offline model and the fake server at `url`. */
export function writeFakeModels(home: string, url: string, options: FakeModelsOptions = {}): void {
  writeFileSync(
    path.join(home, "models.json"),
    JSON.stringify({
      default: options.default ?? "fake",
      models: {
        offline: { provider: "offline", label: "Offline (built-in)", model: "astrion-offline" },
        fake: { base_url: url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model", ...(options.timeouts ? { timeouts: options.timeouts } : {}) },
      },
    }),
  );
}

/**
 * Browser tests: the production build served by `scripts/start.mjs`, driven through Debian's
 * Chromium (no downloaded browsers). The data folder and a project folder are fresh temp
 * folders made once here; they are put on process.env so the test workers see the same ones.
 */
import { defineConfig } from "@playwright/test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const PORT = Number(process.env.E2E_PORT ?? 3217);
/** The port the server looks for a local model server on (ASTRION_DISCOVERY_PORTS). */
const DISCOVERY_PORT = Number(process.env.E2E_DISCOVERY_PORT ?? PORT + 1);
process.env.E2E_DISCOVERY_PORT = String(DISCOVERY_PORT);
/**
 * For quick iteration only: the URL of a server you already run (e.g. `next dev`), with
 * E2E_ASTRION_HOME set to its data folder. Without it the specs start their own production server.
 */
const EXTERNAL_SERVER = process.env.E2E_EXTERNAL_SERVER;

process.env.E2E_ASTRION_HOME ??= fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-home-"));
process.env.E2E_PROJECT_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-project-"));

/** The server's data folder (ASTRION_HOME), for specs that check files on disk. */
export const ASTRION_HOME = process.env.E2E_ASTRION_HOME;
/** An existing folder to use as a conversation's project folder. */
export const PROJECT_DIR = process.env.E2E_PROJECT_DIR;
export const BASE_URL = EXTERNAL_SERVER ?? `http://127.0.0.1:${PORT}`;

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  use: {
    baseURL: BASE_URL,
    locale: "en-US",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: EXTERNAL_SERVER
    ? undefined
    : {
        command: "node scripts/start.mjs",
        url: `${BASE_URL}/api/health`,
        env: {
          PORT: String(PORT),
          HOST: "127.0.0.1",
          ASTRION_HOME,
          // The specs create conversations and send goals faster than a person would.
          ASTRION_RATE_LIMIT_PER_MINUTE: "0",
          // The offline model pauses between steps so a team run lasts a few seconds: long enough
          // for team-run.spec.ts to watch it progress and reload in the middle.
          ASTRION_OFFLINE_DELAY_MS: "40",
          // Local model servers are looked for on this port only (models-settings.spec.ts serves a
          // fake Ollama there), not on 11434/1234/8000/8080, which may be taken on the machine.
          ASTRION_DISCOVERY_PORTS: String(DISCOVERY_PORT),
          NEXT_TELEMETRY_DISABLED: "1",
        },
        reuseExistingServer: false,
        timeout: 180_000,
        stdout: "pipe",
        stderr: "pipe",
      },
});

#!/usr/bin/env node
/**
 * Takes the README's screenshot (docs/screenshot.png): a conversation in which the Team Leader
 * and its team worked on a small project folder, at 1440×900, in English.
 *
 *   node scripts/screenshot.mjs [--url http://127.0.0.1:3000] [--out docs/screenshot.png]
 *                               [--project <folder>] [--goal "<text>"] [--answer "<text>"]
 *                               [--no-build]
 *
 * With --url it drives a server that is already running (its default model is used: the
 * built-in offline one unless models.json or OPENAI_* say otherwise; set ASTRION_TOKEN when the
 * server needs a token). Without it, it starts one on a free loopback port with a fresh temporary
 * data folder — through scripts/start.mjs, which builds the app first when the build is missing or
 * stale, or with --no-build straight from the existing build (scripts/serve.mjs) — and stops it
 * at the end. Without --project the project folder is a temporary copy of this repository's
 * lib/bus folder, so the picture names no folder of your machine. Questions the team asks a
 * person are answered with --answer; a tool call waiting for approval is never approved (the
 * script gives up after 5 minutes). The browser is Chromium at /usr/bin/chromium (or
 * CHROMIUM_PATH), driven by @playwright/test; no browser is downloaded.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "@playwright/test";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    url: { type: "string" },
    out: { type: "string", default: path.join(root, "docs", "screenshot.png") },
    project: { type: "string" },
    goal: { type: "string", default: "Review this project, add tests for it and document its structure" },
    answer: { type: "string", default: "Maintainability: summarise the modules and how they fit together." },
    title: { type: "string", default: "Project review" },
    "no-build": { type: "boolean", default: false },
  },
});

const TIMEOUT_MS = 5 * 60_000;
const token = process.env.ASTRION_TOKEN;
const headers = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const temps = [];

function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

async function api(base, method, route, body) {
  const res = await fetch(new URL(route, base), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${text}`);
  return JSON.parse(text);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts a server of this checkout on a free port with a fresh data folder; resolves once it answers. */
async function startServer() {
  const port = await freePort();
  const home = tempDir("astrion-shot-home-");
  const script = path.join(root, "scripts", opts["no-build"] ? "serve.mjs" : "start.mjs");
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ASTRION_HOME: home, HOST: "127.0.0.1", PORT: String(port), NEXT_TELEMETRY_DISABLED: "1" },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/api/health`)).ok) return { base, stop: () => stopServer(child) };
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  stopServer(child);
  throw new Error("the server did not answer within 5 minutes");
}

function stopServer(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    process.kill(-child.pid, "SIGTERM");
  });
}

/** Sends the goal, answers the team's questions, and resolves once the team has finished. */
async function runTeam(base, projectPath) {
  const { conversation } = await api(base, "POST", "/api/conversations", { title: opts.title, project_path: projectPath, run_mode: "fast" });
  await api(base, "POST", `/api/conversations/${conversation.id}/messages`, { content: opts.goal });
  const deadline = Date.now() + TIMEOUT_MS;
  let settled = 0;
  while (Date.now() < deadline) {
    await sleep(1000);
    const { agents, questions } = await api(base, "GET", `/api/conversations/${conversation.id}/agents`);
    for (const q of questions) {
      await api(base, "POST", `/api/conversations/${conversation.id}/agents/${q.agent_id}/answers`, { question_id: q.question_id, answer: opts.answer });
    }
    const { conversation: now } = await api(base, "GET", `/api/conversations/${conversation.id}`);
    const busy = agents.some((a) => a.metadata.status === "running" || a.metadata.status === "waiting");
    settled = now.phase === "IDLE" && agents.length > 0 && !busy && questions.length === 0 ? settled + 1 : 0;
    if (settled >= 2) return conversation;
  }
  throw new Error(`the team of ${conversation.id} did not finish within 5 minutes`);
}

async function shoot(base, conversation) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: "en-US", ...(token ? { extraHTTPHeaders: { authorization: `Bearer ${token}` } } : {}) });
    const page = await context.newPage();
    await page.goto(new URL(`/conversations/${conversation.id}`, base).href, { waitUntil: "load" });
    await page.getByText(conversation.title).first().waitFor({ timeout: 30_000 });
    await sleep(2000);
    fs.mkdirSync(path.dirname(opts.out), { recursive: true });
    await page.screenshot({ path: opts.out });
  } finally {
    await browser.close();
  }
}

let server;
try {
  server = opts.url ? { base: opts.url, stop: async () => {} } : await startServer();
  let project = opts.project;
  if (!project) {
    project = path.join(tempDir("astrion-shot-project-"), "bus");
    fs.cpSync(path.join(root, "lib", "bus"), project, { recursive: true });
  }
  const conversation = await runTeam(server.base, path.resolve(project));
  await shoot(server.base, conversation);
  console.log(`wrote ${path.relative(process.cwd(), opts.out) || opts.out} (conversation ${conversation.id})`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await server?.stop();
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
}

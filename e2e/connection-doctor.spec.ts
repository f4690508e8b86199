/**
 * The connection doctor in a real browser: a person adds a DashScope model (the quirk-exact fake of
 * test/providers) with a key typed in Settings, clicks "Test connection" on it, and reads one line
 * per check in order, each green, amber or red: the typed key is the one the probes carry (the
 * fake sees it), DashScope's parallel tool calls are amber (the app asks for them). An entry that
 * names no provider shows the profile guessed from its server. In Chinese the lines are Chinese.
 */
import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test, uniqueSuffix } from "./fixtures";
import type { FakeOpenAI } from "../test/helpers/fake-openai";
import { startDashScopeFake } from "../test/providers/dashscope";
import { startVllmFake } from "../test/providers/vllm";

let fake: FakeOpenAI;
let vllm: FakeOpenAI;
let before: string;
const modelsFile = () => path.join(process.env.E2E_ASTRION_HOME!, "models.json");

test.beforeAll(async () => {
  fake = await startDashScopeFake();
  vllm = await startVllmFake({ autoToolChoice: true, reasoningParser: false });
  before = fs.readFileSync(modelsFile(), "utf8");
});

test.afterAll(async () => {
  // The other specs run on the offline model: the file goes back as it was.
  fs.writeFileSync(modelsFile(), before);
  await Promise.all([fake.close(), vllm.close()]);
});

/** Adds an entry with a typed key through the Models section (provider named, or left to the guess); its card. */
async function addDashScope(page: Page, key: string, secret: string, options: { url?: string; provider?: string; model?: string } = {}) {
  await page.goto("/settings");
  const section = page.getByTestId("settings-models");
  await section.getByTestId("model-add").click();
  const form = section.getByTestId("model-form");
  await form.getByTestId("model-field-key").fill(key);
  if (options.provider !== "guess") await form.getByTestId("model-field-provider").selectOption(options.provider ?? "dashscope");
  await form.getByTestId("model-field-base_url").fill(options.url ?? fake.url);
  await form.getByTestId("model-key-mode-stored").check();
  await form.getByTestId("model-field-keyValue").fill(secret);
  await form.getByTestId("model-field-model").fill(options.model ?? "fake-model");
  await form.getByTestId("model-save").click();
  return section.locator(`[data-testid="model-entry"][data-key="${key}"]`);
}

test("Test connection checks an entry in order, with the key typed in Settings", async ({ page }) => {
  const key = `doctor-${uniqueSuffix()}`;
  const secret = `sk-e2e-${uniqueSuffix()}-doctor`;
  const card = await addDashScope(page, key, secret);
  fake.reset();
  await card.getByTestId("doctor-run").click();
  const result = card.getByTestId("doctor-result");
  await expect(result).toBeVisible({ timeout: 60_000 });
  const lines = result.getByTestId("doctor-line");
  await expect(lines).toHaveCount(8);
  expect(await lines.evaluateAll((els) => els.map((e) => e.getAttribute("data-check")))).toEqual(["server", "key", "model", "stream", "tool_call", "parallel_tool_calls", "thinking", "usage"]);
  await expect(result.locator('[data-check="key"]')).toHaveAttribute("data-status", "green");
  await expect(result.locator('[data-check="key"]')).toContainText("The key stored in Settings → Models is accepted.");
  await expect(result.locator('[data-check="parallel_tool_calls"]')).toHaveAttribute("data-status", "amber");
  await expect(result).toHaveAttribute("data-ok", "true");
  // The probes carried the typed key; the page never shows it.
  const probes = fake.requests.filter((r) => r.path === "/v1/chat/completions");
  expect(probes.length).toBeGreaterThan(3);
  expect(probes.every((r) => r.authorization === `Bearer ${secret}`)).toBe(true);
  await expect(page.locator("body")).not.toContainText(secret);
  // The built-in offline model has no connection to test.
  await expect(page.locator('[data-testid="model-entry"][data-key="offline"]').getByTestId("doctor-run")).toHaveCount(0);
});

test("an entry that names no provider shows the profile guessed from its server, and how", async ({ page }) => {
  const card = await addDashScope(page, `guessed-${uniqueSuffix()}`, `sk-e2e-${uniqueSuffix()}-g`, { url: vllm.url, provider: "guess", model: "Qwen/Qwen3-8B" });
  const line = card.getByTestId("model-provider");
  await expect(line).toHaveAttribute("data-profile", "vllm");
  await expect(line).toHaveAttribute("data-source", "server");
  await expect(line).toHaveText('provider: vllm (guessed from the server\'s /v1/models: owned_by "vllm")');
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the doctor's lines are Chinese", async ({ page }) => {
    const card = await addDashScope(page, `doctor-zh-${uniqueSuffix()}`, `sk-e2e-${uniqueSuffix()}-zh`);
    await card.getByTestId("doctor-run").click();
    const result = card.getByTestId("doctor-result");
    await expect(result).toBeVisible({ timeout: 60_000 });
    await expect(result.locator('[data-check="key"]')).toContainText("在“设置 → 模型”中保存的密钥被接受。");
  });
});

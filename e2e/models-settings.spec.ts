/**
 * Settings → Models in a real browser: a person adds a model pointing at a fake OpenAI-compatible
 * server with a typed API key, makes it the default, and a conversation runs on it (the fake sees
 * the key in the Authorization header; the page never shows it); a hand edit of models.json made
 * while the page is open is reported, not overwritten; the section speaks Chinese.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";
import { fakeText, startFakeOpenAI, type FakeOpenAI } from "../test/helpers/fake-openai";

let fake: FakeOpenAI;
let before: string;
const modelsFile = () => path.join(process.env.E2E_ASTRION_HOME!, "models.json");

test.beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: fakeText("Hello from the model typed in Settings.") });
  before = fs.readFileSync(modelsFile(), "utf8");
});

test.afterAll(async () => {
  // The other specs run on the offline model: the file goes back as it was.
  fs.writeFileSync(modelsFile(), before);
  await fake.close();
});

test("add a model with a typed key, make it the default, and a conversation runs on it", async ({ page, projectDir }) => {
  const key = `typed-${uniqueSuffix()}`;
  const secret = `sk-e2e-${uniqueSuffix()}-typed`;
  await page.goto("/settings");
  const section = page.getByTestId("settings-models");
  await section.getByTestId("model-add").click();
  const form = section.getByTestId("model-form");
  await form.getByTestId("model-field-key").fill(key);
  await form.getByTestId("model-field-label").fill("Typed in the UI");
  await form.getByTestId("model-field-provider").selectOption("openai");
  await form.getByTestId("model-field-base_url").fill(fake.url);
  await form.getByTestId("model-key-mode-stored").check();
  await form.getByTestId("model-field-keyValue").fill(secret);
  // The model name list comes from the server's /v1/models, asked with the typed key.
  await form.getByTestId("model-fetch-list").click();
  await expect(form.getByTestId("model-upstream")).toContainText("1 models listed");
  await form.getByTestId("model-field-model").fill("fake-model");
  await form.getByTestId("model-save").click();
  const card = section.locator(`[data-testid="model-entry"][data-key="${key}"]`);
  await expect(card.getByTestId("model-key-state")).toHaveText("key set");
  await expect(page.locator("body")).not.toContainText(secret);
  expect(fs.readFileSync(modelsFile(), "utf8")).not.toContain(secret);

  await card.getByTestId("model-make-default").click();
  await expect(card.getByTestId("model-default-badge")).toBeVisible();

  await page.goto("/");
  await page.getByTestId("new-conversation-open").click();
  await expect(page.getByTestId("new-conversation-model")).toHaveValue(key);
  await page.getByTestId("new-conversation-title").fill(`On ${key}`);
  await page.getByTestId("new-conversation-project-path").fill(projectDir);
  await page.getByTestId("new-conversation-submit").click();
  await expect(page).toHaveURL(/\/conversations\/conv_/);
  fake.reset();
  await new ConversationPage(page).send("Say hello");
  await expect(page.getByTestId("leader-messages")).toContainText("Hello from the model typed in Settings.");
  expect(fake.requests.find((r) => r.path === "/v1/chat/completions")?.authorization).toBe(`Bearer ${secret}`);
  await expect(page.locator("body")).not.toContainText(secret);

  // Back on the offline model for whatever comes next, through the conversation's model picker too.
  await page.getByTestId("conversation-model-change").click();
  await page.getByTestId("conversation-model-select").selectOption("offline");
  await page.getByTestId("conversation-model-save").click();
  await expect(page.getByTestId("conversation-model-change")).toBeVisible();
  await expect(page.getByTestId("model-label")).toContainText("offline");
});

test("a hand edit of models.json made while the page is open is reported, never overwritten", async ({ page }) => {
  await page.goto("/settings");
  const section = page.getByTestId("settings-models");
  await expect(section.locator('[data-testid="model-entry"][data-key="offline"]')).toBeVisible();
  const hand = `hand-${uniqueSuffix()}`;
  const file = JSON.parse(fs.readFileSync(modelsFile(), "utf8")) as { models: Record<string, unknown> };
  file.models[hand] = { base_url: "http://127.0.0.1:9/v1", model: "by-hand" };
  const edited = JSON.stringify(file, null, 2);
  fs.writeFileSync(modelsFile(), edited);

  await section.getByTestId("model-add").click();
  const form = section.getByTestId("model-form");
  await form.getByTestId("model-field-key").fill(`form-${uniqueSuffix()}`);
  await form.getByTestId("model-field-base_url").fill("http://127.0.0.1:11434/v1");
  await form.getByTestId("model-field-model").fill("qwen3:8b");
  await form.getByTestId("model-save").click();
  await expect(section.getByTestId("models-stale")).toContainText("changed on disk");
  expect(fs.readFileSync(modelsFile(), "utf8")).toBe(edited);
  await section.getByTestId("models-reload").click();
  await expect(section.locator(`[data-testid="model-entry"][data-key="${hand}"]`)).toBeVisible();
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the Models section's labels are Chinese", async ({ page }) => {
    await page.goto("/settings");
    const section = page.getByTestId("settings-models");
    await expect(section.getByRole("heading", { name: "模型" })).toBeVisible();
    await section.getByTestId("model-add").click();
    await expect(section.getByTestId("model-add")).toHaveCount(0);
    const form = section.getByTestId("model-form");
    await expect(form).toContainText("基础 URL");
    await expect(form).toContainText("API 密钥");
    await expect(form).toContainText("无需密钥（本地服务器）");
    await form.getByTestId("model-field-key").fill("bad key!");
    await form.getByTestId("model-save").click();
    await expect(form.getByTestId("model-error-key")).toContainText("由字母、数字");
    await expect(form.getByTestId("model-error-model")).toHaveText("必须填写模型名。");
    await expect(section.getByTestId("models-local")).toContainText("在这台电脑上发现");
  });
});

test("with no model configured, the new-conversation form offers a local server's model beside the offline one", async ({ page, request }) => {
  const port = Number(process.env.E2E_DISCOVERY_PORT);
  const ollama = http.createServer((req, res) => {
    if (req.url === "/api/tags") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ models: [{ name: "qwen3:8b" }] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => ollama.listen(port, "127.0.0.1", resolve));
  try {
    // Only the offline model: what a new user has.
    fs.writeFileSync(modelsFile(), JSON.stringify({ default: "offline", models: { offline: { provider: "offline", label: "Offline (built-in)", model: "astrion-offline" } } }, null, 2));
    expect((await request.post("/api/models/discovery", { data: {} })).ok()).toBe(true);
    await page.goto("/");
    await page.getByTestId("new-conversation-open").click();
    const offer = page.getByTestId("new-conversation-local");
    await expect(offer).toContainText(`Ollama (127.0.0.1:${port})`);
    await offer.locator('[data-testid="new-conversation-local-use"][data-model="qwen3:8b"]').click();
    await expect(page.getByTestId("new-conversation-model")).toHaveValue("ollama-qwen3-8b");
    await expect(page.getByTestId("new-conversation-model").locator("option")).toHaveText([/offline/i, /qwen3:8b/]);
    const added = JSON.parse(fs.readFileSync(modelsFile(), "utf8")).models["ollama-qwen3-8b"];
    expect(added).toMatchObject({ provider: "ollama", base_url: `http://127.0.0.1:${port}/v1`, model: "qwen3:8b" });
    expect(added.api_key_env ?? added.api_key_ref).toBeUndefined();
  } finally {
    ollama.closeAllConnections();
    await new Promise<void>((resolve) => ollama.close(() => resolve()));
  }
});

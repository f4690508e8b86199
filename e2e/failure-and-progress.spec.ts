/**
 * Issue 30, parts C and E, in a real browser and in both languages: a dead endpoint gives one
 * error banner in the page's language, the person's message marked "failed" with a Retry that
 * takes the work up again (and still one banner); a goal over its limit is refused with the
 * sentence naming the limit, with a character counter near it; an agent card says what the agent
 * is doing ("reading …") during an offline run, and nothing says "thinking" after Stop.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test, uniqueSuffix, addDeadModel } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";

addDeadModel("dead");

/** A small project the offline team can list, read and search. */
function smallProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-progress-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "README.md"), "# Acme landing page\n\nA hero section, three feature cards and a sign-up form.\n");
  fs.writeFileSync(path.join(dir, "src", "index.html"), '<!doctype html>\n<html lang="en"><body><h1>Acme</h1><form id="signup"></form></body></html>\n');
  return dir;
}

async function openConversation(page: Page, request: APIRequestContext, modelKey: string, project: string): Promise<ConversationPage> {
  const created = await request.post("/api/conversations", { headers: { "content-type": "application/json" }, data: { title: `Issue 30 ${uniqueSuffix()}`, project_path: project, model_key: modelKey } });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
  const conv = new ConversationPage(page);
  await conv.goto(id);
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
  return conv;
}

const LANGUAGES = [
  {
    locale: "en-US",
    cause: "nothing answers at its address",
    failed: "failed",
    retry: "Retry",
    tooLong: "The goal is too long: at most 100,000 characters.",
    reading: /reading \S+/,
    thinking: /thinking/i,
    stopped: "not working",
  },
  {
    locale: "zh-CN",
    cause: "其地址上没有服务应答",
    failed: "失败",
    retry: "重试",
    tooLong: "目标太长：最多 100,000 个字符。",
    reading: /正在读取 \S+/,
    thinking: /思考|thinking/i,
    stopped: "未在工作",
  },
] as const;

for (const lang of LANGUAGES) {
  test.describe(`in ${lang.locale}`, () => {
    test.use({ locale: lang.locale });

    test("a dead endpoint gives one error banner in the page's language, the message marked failed, and a Retry", async ({ page, request, projectDir }) => {
      test.setTimeout(120_000);
      const conv = await openConversation(page, request, "dead", projectDir);
      await conv.send("Say hello");

      const banners = page.getByTestId("notice-banner");
      const error = page.locator('[data-testid="notice-banner"][data-level="error"]');
      await expect(error).toHaveCount(1, { timeout: 60_000 });
      // The degraded warning and the failure are one problem: one banner, and no "Limit reached".
      await expect(banners).toHaveCount(1);
      await expect(error.getByTestId("notice-text")).toContainText(lang.cause);
      await expect(error.getByTestId("notice-text")).not.toContainText("Could not reach");
      await expect(error.getByTestId("notice-text")).not.toContainText("ECONNREFUSED");

      const failed = conv.personMessages.filter({ hasText: "Say hello" });
      await expect(failed).toHaveAttribute("data-failed", "true");
      await expect(failed.getByTestId("message-failed")).toContainText(lang.failed);
      await expect(error.getByTestId("notice-retry")).toHaveText(lang.retry);

      // Retry takes the same message up again (nothing re-sent); it fails again: still one banner.
      const reports = Number(await error.getAttribute("data-count"));
      await failed.getByTestId("message-retry").click();
      await expect.poll(async () => Number(await error.getAttribute("data-count")), { timeout: 60_000 }).toBeGreaterThan(reports);
      await expect(banners).toHaveCount(1);
      await expect(conv.personMessages).toHaveCount(1);
      await expect(failed.getByTestId("message-failed")).toBeVisible();
    });

    test("a goal over its limit is refused with the sentence naming the limit, and the counter shows near it", async ({ page, request, projectDir }) => {
      await openConversation(page, request, "offline", projectDir);
      const input = page.getByTestId("composer-input");
      const counter = page.getByTestId("composer-input-counter");
      await input.fill("x".repeat(79_000));
      await expect(counter).toHaveCount(0);
      await input.fill("x".repeat(80_000));
      await expect(counter).toHaveText("80,000 / 100,000");
      await input.fill("x".repeat(100_001));
      await expect(counter).toHaveAttribute("data-over", "true");
      await input.press("Enter");
      await expect(page.getByTestId("composer-input-error")).toHaveText(lang.tooLong);
      await expect(page.locator("body")).not.toContainText("too_big");
      // Nothing was sent, and the text is kept.
      await expect(page.getByTestId("chat-message")).toHaveCount(0);
      await expect(input).toHaveValue("x".repeat(100_001));
    });

    test("an agent card says what the agent is reading, and nothing says thinking after Stop", async ({ page, request }) => {
      test.setTimeout(120_000);
      const project = smallProject();
      try {
        const conv = await openConversation(page, request, "offline", project);
        await conv.send("Review the landing page");
        await expect(conv.agents.first()).toBeVisible({ timeout: 30_000 });
        await expect(page.getByTestId("team-panel").getByTestId("agent-activity").filter({ hasText: lang.reading }).first()).toBeVisible({ timeout: 30_000 });
        await page.getByTestId("stop-button").click();
        await expect(page.getByTestId("stop-button")).toHaveCount(0, { timeout: 30_000 });
        const actions = page.getByTestId("team-panel").getByTestId("agent-current-action");
        await expect.poll(async () => (await actions.allTextContents()).filter((text) => lang.thinking.test(text))).toEqual([]);
        await expect(page.getByTestId("team-panel")).not.toContainText(lang.thinking);
        for (const card of await conv.agents.all()) {
          if ((await card.getAttribute("data-status")) === "idle") await expect(card.getByTestId("agent-current-action")).toHaveText(lang.stopped);
        }
      } finally {
        fs.rmSync(project, { recursive: true, force: true });
      }
    });
  });
}

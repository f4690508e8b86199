/**
 * The first hour, as a new user meets it, in English and in Chinese: a conversation is created
 * with its goal in one form; the offline team works live (agents say what they are doing); the
 * goal asks to run the tests, so an approval card comes up and is approved; the report comes
 * back with the command's real result; the conversation's model is changed from its page (the
 * timeline records it); and a dead endpoint gives exactly one clean error, in the page's
 * language, with the failed message marked and a retry.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test as base, uniqueSuffix, addDeadModel } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";

/** A small Node project with a passing test script. */
function makeProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-first-hour-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.mkdirSync(path.join(dir, "test"));
  fs.writeFileSync(path.join(dir, "README.md"), "# Counter\n\nA tiny counter library.\n");
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "counter", version: "1.0.0", type: "module", main: "src/index.js", scripts: { test: "node test/counter.test.js" } }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, "src", "index.js"), "export function createCounter(start = 0) {\n  let value = start;\n  return { increment: () => ++value, get: () => value };\n}\n");
  fs.writeFileSync(path.join(dir, "test", "counter.test.js"), 'import assert from "node:assert";\nimport { createCounter } from "../src/index.js";\nconst c = createCounter();\nc.increment();\nassert.equal(c.get(), 1);\nconsole.log("counter tests passed");\n');
  return dir;
}

const test = base.extend<{ project: string }>({
  // Playwright requires an object pattern as the first argument, even an empty one.
  project: async ({}, provide) => {
    const dir = makeProject();
    await provide(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
});

addDeadModel("first-hour-dead");

const LANGUAGES = [
  {
    locale: "en-US",
    goal: "Run the tests and report the results",
    retry: "Retry",
    failed: /failed/i,
    approvalTitle: /approv/i,
  },
  {
    locale: "zh-CN",
    goal: "运行测试并报告结果",
    retry: "重试",
    failed: /失败/,
    approvalTitle: /批准|审批/,
  },
] as const;

for (const lang of LANGUAGES) {
  test.describe(`in ${lang.locale}`, () => {
    test.use({ locale: lang.locale });

    test("create with a goal, watch the team, approve its command, read the report, change the model, one clean error", async ({ page, project }) => {
      test.setTimeout(240_000);
      const conv = new ConversationPage(page);

      // One form: title, project and the goal; the team starts on it.
      await page.goto("/");
      await page.getByTestId("new-conversation-open").click();
      await page.getByTestId("new-conversation-title").fill(`First hour ${uniqueSuffix()}`);
      await page.getByTestId("new-conversation-project-path").fill(project);
      await expect(page.getByTestId("new-conversation-model")).toBeEnabled();
      await page.getByTestId("new-conversation-goal").fill(lang.goal);
      await page.getByTestId("new-conversation-submit").click();
      await expect(page).toHaveURL(/\/conversations\/conv_/);
      await expect(conv.personMessages).toHaveText([lang.goal]);

      // The team appears; an agent says what it is doing, in words.
      await expect(conv.agents.first()).toBeVisible({ timeout: 60_000 });
      await expect(conv.agents.first().getByTestId("agent-current-action")).not.toBeEmpty({ timeout: 30_000 });

      // The goal asks to run the tests: the approval card names the project's real test command.
      const approval = page.getByTestId("approval-card").first();
      await expect(approval).toBeVisible({ timeout: 90_000 });
      await expect(approval.getByTestId("approval-command")).toHaveText("npm test");
      await approval.getByTestId("approval-approve").click();

      // The report comes back with the command's real outcome; the run ends; nothing says "thinking".
      await expect(conv.reportCards.first()).toBeVisible({ timeout: 90_000 });
      await expect(conv.reportCards.first()).toContainText("counter tests passed");
      await expect(conv.phase).toHaveAttribute("data-phase", "IDLE", { timeout: 60_000 });
      await expect(page.getByTestId("team-panel")).not.toContainText(/thinking|思考中/);

      // Change the model from the page: the next call uses it, and the timeline records the change.
      await page.getByTestId("conversation-model-change").click();
      await page.getByTestId("conversation-model-select").selectOption("first-hour-dead");
      await page.getByTestId("conversation-model-save").click();
      await expect(page.getByTestId("model-label")).toContainText("first-hour-dead");
      await page.getByTestId("conversation-tab-timeline").click();
      await expect(page.getByTestId("timeline-arrow").filter({ hasText: "model_changed" })).toHaveCount(1);
      await page.getByTestId("conversation-tab-chat").click();

      // A dead endpoint: exactly one error banner, in the page's language, the message marked, a retry.
      await conv.send("Summarise once more");
      const banners = page.locator('[data-testid="notice-banner"][data-level="error"]');
      await expect(banners.first()).toBeVisible({ timeout: 60_000 });
      // the fallback, the retries and the cap reached afterwards do not add banners
      await expect(conv.phase).toHaveAttribute("data-phase", "IDLE", { timeout: 60_000 });
      await expect(banners).toHaveCount(1);
      await expect(banners.first().getByTestId("notice-text")).not.toContainText(/too_big|ECONNREFUSED|\{"/);
      const failedMessage = conv.personMessages.filter({ hasText: "Summarise once more" });
      await expect(failedMessage).toHaveAttribute("data-failed", "true");
      await expect(failedMessage.getByTestId("message-failed")).toContainText(lang.failed);
      await expect(failedMessage.getByTestId("message-retry")).toHaveText(lang.retry);
      await expect(banners.first().getByTestId("notice-retry")).toHaveText(lang.retry);
    });
  });
}

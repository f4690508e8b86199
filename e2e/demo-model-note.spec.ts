/**
 * A conversation on the built-in offline model says so in one line, with a link to where a real
 * model is connected (Settings → Models), in English and in Chinese.
 */
import { expect, test, uniqueSuffix } from "./fixtures";

test("a conversation on the offline model carries the demo-model note and its link, in both languages", async ({ page, conversationIndex, projectDir }) => {
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title: `Demo note ${uniqueSuffix()}`, projectPath: projectDir });
  await conversationIndex.submitNewForm();
  await expect(page).toHaveURL(/\/conversations\/conv_/);
  const note = page.getByTestId("demo-model-note");
  await expect(note).toHaveText("Built-in demo model — connect a real one in Settings → Models.");
  await expect(page.getByTestId("demo-model-link")).toHaveAttribute("href", "/settings#settings-models");

  await page.getByTestId("locale-zh-CN").click();
  await expect(note).toHaveText("内置演示模型——可在 设置 → 模型中连接真实模型。");
  await page.getByTestId("demo-model-link").click();
  await expect(page).toHaveURL(/\/settings#settings-models$/);
  await expect(page.getByTestId("settings-models")).toBeVisible();
  await page.getByTestId("locale-en").click();
});

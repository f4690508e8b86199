/**
 * Issue 30, part E, in a zh-CN page: the new-conversation form names a text over its limit in the
 * page's language — the project folder's path caught in the browser, the title refused by the
 * server (its `too_long` issue) — beside the field, never the server's English.
 */
import { expect, test } from "./fixtures";

test.use({ locale: "zh-CN" });

test("the new-conversation form names the title's and the path's limits in Chinese", async ({ page, conversationIndex, projectDir }) => {
  await conversationIndex.goto();
  await conversationIndex.openNewForm();

  // A path over its 4,096 characters is refused in the browser, with the contract's limit.
  await conversationIndex.fillNewForm({ title: "路径太长", projectPath: `/${"a".repeat(5000)}` });
  await conversationIndex.submitNewForm();
  await expect(page.getByTestId("new-conversation-project-path-error")).toHaveText("项目文件夹路径太长：最多 4,096 个字符。");

  // The title box stops at 200 characters; a longer title sent anyway is refused by the server,
  // whose coded answer is worded by the page.
  await page.route("**/api/conversations", async (route) => {
    const request = route.request();
    if (request.method() !== "POST") return route.fallback();
    const body = JSON.parse(request.postData() ?? "{}") as Record<string, unknown>;
    const response = await route.fetch({ postData: JSON.stringify({ ...body, title: "长".repeat(300) }) });
    expect(response.status()).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("too_long");
    await route.fulfill({ response });
  });
  await conversationIndex.fillNewForm({ title: "标题", projectPath: projectDir });
  await conversationIndex.submitNewForm();
  await expect(page.getByTestId("new-conversation-title-error")).toHaveText("标题太长：最多 200 个字符。");
  await expect(page.getByTestId("new-conversation-title-error")).not.toContainText("characters");
  await expect(page).toHaveURL(/\/$/);
});

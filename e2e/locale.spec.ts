import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";

test("switching to Chinese translates the UI and survives a reload", async ({ page }) => {
  await page.goto("/");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByTestId("nav-conversations")).toHaveText("Conversations");

  await page.getByTestId("locale-zh-CN").click();
  await expect(page.getByTestId("nav-conversations")).toHaveText("会话");
  await expect(page.getByTestId("nav-roles")).toHaveText("角色");
  await expect(page.getByTestId("nav-settings")).toHaveText("设置");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
  await expect(page.getByTestId("page-title")).toHaveText("会话");
  await expect(page.getByTestId("conversation-filter-archived")).toHaveText("已归档");

  await page.reload();
  await expect(page.getByTestId("nav-roles")).toHaveText("角色");
  await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");

  // Client-rendered pages follow too.
  await page.getByTestId("nav-roles").click();
  await expect(page.getByTestId("role-new")).toContainText("新建角色");

  await page.getByTestId("locale-en").click();
  await expect(page.getByTestId("nav-roles")).toHaveText("Roles");
});

test.describe("without a cookie", () => {
  test.use({ locale: "zh-CN" });

  test("a Chinese browser gets Chinese from Accept-Language", async ({ page }) => {
    await page.goto("/settings");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await expect(page.getByTestId("page-title")).toHaveText("设置");
  });
});

test.describe("server-made notices", () => {
  test.use({ locale: "zh-CN" });

  test("a Chinese page shows the runtime's notices in Chinese", async ({ page, request }) => {
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-notice-"));
    fs.writeFileSync(path.join(project, "README.md"), "# Notice demo\n\nA project for the notice test.\n");
    const created = await request.post("/api/conversations", { headers: { "content-type": "application/json" }, data: { title: `通知 ${uniqueSuffix()}`, project_path: project, model_key: "offline" } });
    expect(created.status(), await created.text()).toBe(201);
    const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
    await page.goto(`/conversations/${id}`);
    await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
    await page.getByTestId("composer-input").fill("Review the project");
    await page.getByTestId("composer-input").press("Enter");
    await page.getByTestId("stop-button").click();
    const banner = page.locator('[data-testid="notice-banner"][data-code="stopped"]');
    await expect(banner.getByTestId("notice-text")).toHaveText("已停止。发送一条消息即可继续。");
    // after a reload the snapshot's notice is rendered the same way
    await page.reload();
    await expect(page.locator('[data-testid="notice-banner"][data-code="stopped"]').getByTestId("notice-text")).toHaveText("已停止。发送一条消息即可继续。");
  });
});

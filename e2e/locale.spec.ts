import { expect, test } from "./fixtures";

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

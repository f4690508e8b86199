/**
 * Settings → Knowledge index in a real browser: a project folder named by a conversation is
 * listed (not indexed yet), Build indexes it and the row shows the files indexed of total and
 * the last update, in English and in Chinese.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";

const JSON_HEADERS = { "content-type": "application/json" };

test("a conversation's project folder is listed, built on demand and shows its progress", async ({ page, request }) => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), `astrion-e2e-knowledge-${uniqueSuffix()}-`));
  fs.mkdirSync(path.join(project, "docs"));
  fs.writeFileSync(path.join(project, "README.md"), "# Demo\n\n## Settings\n\nThe timeout defaults to 30 seconds.\n");
  fs.writeFileSync(path.join(project, "docs", "api.md"), "# API\n\n## Fields\n\nid, name\n");
  fs.writeFileSync(path.join(project, ".gitignore"), "dist/\n");
  const created = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title: `Knowledge ${uniqueSuffix()}`, project_path: project, model_key: "offline" } });
  expect(created.status()).toBe(201);
  const real = fs.realpathSync(project);

  await page.goto("/settings");
  const section = page.getByTestId("settings-knowledge");
  await expect(section.getByRole("heading", { name: "Knowledge index" })).toBeVisible();
  const row = section.locator(`[data-testid="settings-knowledge-project"][data-project="${real}"]`);
  await expect(row.getByTestId("settings-knowledge-state")).toHaveText("not indexed yet");
  await row.getByTestId("settings-knowledge-rebuild").click();
  await expect(row.getByTestId("settings-knowledge-state")).toHaveText("ready");
  await expect(row.getByTestId("settings-knowledge-files")).toHaveText("3 / 3 files");
  await expect(row.getByTestId("settings-knowledge-updated")).not.toContainText("never");
  await expect(row.getByTestId("settings-knowledge-rebuild")).toHaveText("Rebuild");

  await page.getByTestId("locale-zh-CN").click();
  await expect(page.getByTestId("settings-knowledge").getByRole("heading", { name: "知识索引" })).toBeVisible();
  await expect(row.getByTestId("settings-knowledge-state")).toHaveText("就绪");
  await expect(row.getByTestId("settings-knowledge-files")).toHaveText("3 / 3 个文件");
});

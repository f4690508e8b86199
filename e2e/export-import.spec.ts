/**
 * Export and import from the browser: the conversation header's Export menu downloads the
 * Markdown report and the zip; the zip, uploaded with "Import .zip" on the index, brings a deleted
 * conversation back; importing it again opens the conflict dialog (new copy, or overwrite after a
 * second confirmation); "Export selected" downloads several conversations as one zip.
 */
import fs from "node:fs";
import { expect, test, uniqueSuffix } from "./fixtures";

test("export a conversation as Markdown and zip, then import the zip back through the UI", async ({ page, request, projectDir, conversationIndex }) => {
  const title = `Export me ${uniqueSuffix()}`;
  const created = await request.post("/api/conversations", { headers: { "content-type": "application/json" }, data: { title, project_path: projectDir, model_key: "offline" } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).conversation.id as string;

  await page.goto(`/conversations/${id}`);
  await expect(page.getByTestId("conversation-title")).toHaveText(title);

  await page.getByTestId("conversation-export").click();
  const [md] = await Promise.all([page.waitForEvent("download"), page.getByTestId("conversation-export-md").click()]);
  expect(md.suggestedFilename()).toBe(`${id}-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.md`);
  const report = fs.readFileSync((await md.path())!, "utf8");
  expect(report.split("\n")[0]).toBe(`# ${title}`);
  expect(report).toContain("## Team Leader thread");

  await page.getByTestId("conversation-export").click();
  const [zip] = await Promise.all([page.waitForEvent("download"), page.getByTestId("conversation-export-zip").click()]);
  expect(zip.suggestedFilename()).toMatch(new RegExp(`^${id}-.*\\.zip$`));
  const zipPath = (await zip.path())!;
  expect(fs.readFileSync(zipPath).subarray(0, 2).toString("latin1")).toBe("PK");

  // Delete it, then bring it back from the zip.
  await page.getByTestId("conversation-delete").click();
  await page.getByTestId("conversation-delete-dialog-confirm").click();
  await expect(page.getByTestId("page-title")).toBeVisible();
  await expect(conversationIndex.row(title)).toHaveCount(0);

  await page.getByTestId("conversation-import-input").setInputFiles(zipPath);
  await expect(page.getByTestId("conversation-import-done")).toContainText(`${title} (${id})`);
  await expect(conversationIndex.row(title)).toHaveCount(1);

  // Again: the id is taken. The dialog offers a copy.
  await page.getByTestId("conversation-import-input").setInputFiles(zipPath);
  const conflict = page.getByTestId("conversation-import-conflict");
  await expect(conflict).toBeVisible();
  await expect(conflict).toContainText(id);
  await page.getByTestId("conversation-import-copy").click();
  await expect(conflict).toBeHidden();
  // The copy is told apart from the original by its title.
  const copyTitle = `${title} (imported copy)`;
  await expect(page.getByTestId("conversation-import-done")).toContainText(copyTitle);
  await expect(conversationIndex.row(title)).toHaveCount(1);
  await expect(conversationIndex.row(copyTitle)).toHaveCount(1);

  // And once more: overwrite needs its own confirmation.
  await page.getByTestId("conversation-import-input").setInputFiles(zipPath);
  await expect(conflict).toBeVisible();
  await page.getByTestId("conversation-import-overwrite").click();
  const confirm = page.getByTestId("conversation-import-overwrite-dialog");
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText(id);
  await page.getByTestId("conversation-import-overwrite-dialog-confirm").click();
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId("conversation-import-done")).toContainText(`${title} (${id})`);
  await expect(conversationIndex.row(title)).toHaveCount(1);
  await expect(conversationIndex.row(copyTitle)).toHaveCount(1);

  // The imported conversation opens.
  await page.goto(`/conversations/${id}`);
  await expect(page.getByTestId("conversation-title")).toHaveText(title);
  await expect(page.getByTestId("conversation-id")).toHaveText(id);

  // Both rows selected: one zip.
  await page.goto("/");
  for (const row of [conversationIndex.row(title), conversationIndex.row(copyTitle)]) await row.getByTestId("conversation-select").check();
  await expect(page.getByTestId("conversation-export-selected")).toHaveText("Export selected (2)");
  const [bulk] = await Promise.all([page.waitForEvent("download"), page.getByTestId("conversation-export-selected").click()]);
  expect(bulk.suggestedFilename()).toMatch(/^astrion-conversations-\d{14}\.zip$/);
  const bulkBytes = fs.readFileSync((await bulk.path())!);
  expect(bulkBytes.subarray(0, 2).toString("latin1")).toBe("PK");
  expect(bulkBytes.includes(Buffer.from(`${id}/metadata.json`))).toBe(true);
});

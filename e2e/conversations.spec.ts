import fs from "node:fs";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";

test("a conversation created from the index is listed after a reload and moves to Archived", async ({
  page,
  conversationIndex,
  projectDir,
  astrionHome,
}) => {
  const title = `E2E conversation ${uniqueSuffix()}`;
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title, projectPath: projectDir, runMode: "thinking" });
  await conversationIndex.submitNewForm();
  await expect(page).toHaveURL(/\/conversations\/conv_\d{8}_\d{6}_\d{3,}$/);
  await expect(page.getByTestId("conversation-title")).toHaveText(title);
  await expect(page.getByTestId("conversation-project-path")).toHaveText(projectDir);
  await expect(page.getByTestId("conversation-run-mode")).toHaveText("Thinking");
  await expect(page.getByTestId("leader-messages-empty")).toBeVisible();
  const id = page.url().split("/").pop() ?? "";
  expect(fs.existsSync(path.join(astrionHome, "conversations", id, "metadata.json"))).toBe(true);

  await conversationIndex.goto();
  await page.reload();
  const row = conversationIndex.row(title);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute("data-conversation-id", id);
  await expect(row.getByTestId("conversation-status")).toHaveText("Active");
  await expect(row.getByTestId("conversation-model")).toContainText("offline");

  await row.getByTestId("conversation-archive").click();
  await expect(conversationIndex.row(title)).toHaveCount(0);

  await conversationIndex.filter("archived");
  const archived = conversationIndex.row(title);
  await expect(archived).toBeVisible();
  await expect(archived.getByTestId("conversation-status")).toHaveText("Archived");
  await expect(archived.getByTestId("conversation-unarchive")).toBeVisible();

  const metadata: unknown = JSON.parse(fs.readFileSync(path.join(astrionHome, "conversations", id, "metadata.json"), "utf8"));
  expect(metadata).toMatchObject({ id, title, status: "archived", run_mode: "thinking" });
});

test("a goal typed in the new-conversation form starts the team in the same step", async ({ page, conversationIndex, projectDir, astrionHome }) => {
  const title = `E2E goal ${uniqueSuffix()}`;
  const goal = "Summarize what this project folder holds";
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title, projectPath: projectDir, goal });
  await expect(page.getByTestId("new-conversation-submit")).toHaveText("Create and start");
  await conversationIndex.submitNewForm();
  await expect(page).toHaveURL(/\/conversations\/conv_\d{8}_\d{6}_\d{3,}$/);
  await expect(page.getByTestId("conversation-title")).toHaveText(title);
  // The goal is the person's first message, and the team is at work without a second form.
  const person = page.locator('[data-testid="leader-messages"] [data-testid="chat-message"][data-kind="person"]');
  await expect(person).toHaveText([goal]);
  await expect(page.getByTestId("leader-messages-empty")).toHaveCount(0);
  const id = page.url().split("/").pop() ?? "";
  const leader = JSON.parse(fs.readFileSync(path.join(astrionHome, "conversations", id, "messages.json"), "utf8")) as {
    messages: Array<{ content: string; metadata?: { message_source?: string; starts_work?: boolean } }>;
  };
  expect(leader.messages.filter((m) => m.metadata?.message_source === "user").map((m) => [m.content, m.metadata?.starts_work])).toEqual([[goal, true]]);
});

test("the new-conversation form shows the server's validation errors beside the fields", async ({
  page,
  conversationIndex,
  projectDir,
}) => {
  await conversationIndex.goto();
  await conversationIndex.openNewForm();

  // An empty folder is caught in the browser with the contract's own message.
  await conversationIndex.fillNewForm({ title: "Nowhere", projectPath: "" });
  await conversationIndex.submitNewForm();
  await expect(page.getByTestId("new-conversation-project-path-error")).toHaveText("a project folder is required");

  // A folder that does not exist is refused by the server, and the answer lands beside the field.
  const missing = path.join(projectDir, "does-not-exist");
  await conversationIndex.fillNewForm({ title: "Nowhere", projectPath: missing });
  await conversationIndex.submitNewForm();
  await expect(page.getByTestId("new-conversation-project-path-error")).toContainText("does not exist");
  await expect(page).toHaveURL(/\/$/);
});

test("a refused project folder is explained in plain words, in the reader's language", async ({ page, conversationIndex, astrionHome }) => {
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  const error = page.getByTestId("new-conversation-project-path-error");

  // The whole disk.
  await conversationIndex.fillNewForm({ title: "Everything", projectPath: "/" });
  await conversationIndex.submitNewForm();
  await expect(error).toHaveText(
    "/ is the top of the whole disk. Agents working there could read and change every file on this machine, Astrion's own settings included. Choose your project's own folder.",
  );

  // A folder holding Astrion's data folder says which one and how to fix it.
  const parent = path.dirname(astrionHome);
  await conversationIndex.fillNewForm({ title: "Parent", projectPath: parent });
  await conversationIndex.submitNewForm();
  await expect(error).toHaveText(
    `This folder contains Astrion's own data folder (${astrionHome}). Agents working here could change Astrion's settings. Choose a folder inside it, or move the data folder with ASTRION_HOME.`,
  );
  await expect(page.getByTestId("new-conversation-project-path")).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(/\/$/);

  // The form keys its text on the API's stable reason, so the shown refusal follows the language.
  await page.getByTestId("locale-zh-CN").click();
  await expect(error).toHaveText(
    `该文件夹包含 Astrion 自己的数据文件夹（${astrionHome}）。在这里工作的智能体可能修改 Astrion 的设置。请选择其中的某个子文件夹，或用 ASTRION_HOME 把数据文件夹移到别处。`,
  );
  await conversationIndex.fillNewForm({ title: "根目录", projectPath: "/" });
  await conversationIndex.submitNewForm();
  await expect(error).toHaveText("/ 是整个磁盘的最顶层。在这里工作的智能体可以读取和修改这台机器上的所有文件，包括 Astrion 自己的设置。请选择你的项目自己的文件夹。");
  await page.getByTestId("locale-en").click();
});

test("a conversation can be renamed inline and deleted after confirming", async ({ page, conversationIndex, projectDir, astrionHome }) => {
  const title = `E2E rename ${uniqueSuffix()}`;
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title, projectPath: projectDir });
  await conversationIndex.submitNewForm();
  await expect(page.getByTestId("conversation-title")).toHaveText(title);
  const id = page.url().split("/").pop() ?? "";

  await page.getByTestId("conversation-rename").click();
  await page.getByTestId("conversation-title-input").fill("   ");
  await page.getByTestId("conversation-title-save").click();
  await expect(page.getByTestId("conversation-title-error")).toHaveText("a title cannot be empty");
  await page.getByTestId("conversation-title-input").fill(`${title} (renamed)`);
  await page.getByTestId("conversation-title-save").click();
  await expect(page.getByTestId("conversation-title")).toHaveText(`${title} (renamed)`);

  // Cancelling the dialog keeps the conversation; confirming removes it from disk and the index.
  await page.getByTestId("conversation-delete").click();
  await expect(page.getByTestId("conversation-delete-dialog")).toBeVisible();
  await page.getByTestId("conversation-delete-dialog-cancel").click();
  await expect(page.getByTestId("conversation-delete-dialog")).toBeHidden();
  await page.getByTestId("conversation-delete").click();
  await page.getByTestId("conversation-delete-dialog-confirm").click();
  await expect(page).toHaveURL(/\/$/);
  await conversationIndex.filter("all");
  await expect(conversationIndex.row(`${title} (renamed)`)).toHaveCount(0);
  expect(fs.existsSync(path.join(astrionHome, "conversations", id))).toBe(false);
});

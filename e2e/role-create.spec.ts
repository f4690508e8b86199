import fs from "node:fs";
import path from "node:path";
import { expect, readRoleFile, test, uniqueSuffix } from "./fixtures";

test("creating a role through the form shows inline errors, then writes agents/<id>.md", async ({
  page,
  roleEditor,
  astrionHome,
}) => {
  const id = `e2e-reviewer-${uniqueSuffix()}`;
  await roleEditor.gotoNew();

  // An id with a space is refused as the user types, with the server schema's own message.
  await roleEditor.field("id").fill("code reviewer");
  await expect(roleEditor.error("id")).toContainText("use letters, digits, '-' and '_' only");

  await roleEditor.field("name").fill("Code Reviewer");
  await roleEditor.save();
  // Submitting with an empty description flags it beside the field, and nothing is written.
  await expect(roleEditor.error("description")).toHaveText("a description is required");
  await expect(page.getByTestId("role-fix-errors")).toBeVisible();
  await expect(page).toHaveURL(/\/roles\/new$/);

  await roleEditor.field("id").fill(id);
  await expect(roleEditor.error("id")).toHaveCount(0);
  await roleEditor.field("description").fill("Reviews changes for bugs and risky patterns.");
  await expect(roleEditor.error("description")).toHaveCount(0);
  // the editor says what a model name resolves to: Claude Code's names are aliases of models.json
  await roleEditor.field("model").fill("sonnet");
  await expect(page.getByTestId("role-model-resolves")).toHaveText(/^"sonnet" is an alias in models\.json: runs on /);
  await roleEditor.field("model").fill("gpt-9000");
  await expect(page.getByTestId("role-model-resolves")).toHaveAttribute("data-warning", "true");
  await roleEditor.field("model").fill("offline");
  await expect(page.getByTestId("role-model-resolves")).toHaveText(/^Runs on Offline/);
  await page.getByTestId("role-field-thinking-mode").selectOption("thinking");
  await roleEditor.field("capabilities").fill("code-review, python security");
  await page.getByTestId("role-field-permission-write").check();
  await roleEditor.field("tools").fill("read_file, search_files");
  // Tools, once named, decide the permissions: the boxes show theirs (read only) and the form's own are kept.
  await expect(page.getByTestId("role-field-permission-write")).not.toBeChecked();
  await expect(page.getByTestId("role-field-permission-write")).toBeDisabled();
  await expect(page.getByTestId("role-field-permission-read")).toBeChecked();
  await roleEditor.field("max-concurrency").fill("2");
  await roleEditor.body.fill("You review code.\n\n- Point out **bugs** first.\n");
  await page.getByTestId("role-body-tab-preview").click();
  await expect(page.getByTestId("role-body-preview").locator("strong")).toHaveText("bugs");
  await roleEditor.save();

  // After creation the editor opens the new role's page.
  await expect(page).toHaveURL(new RegExp(`/roles/${id}$`));
  await expect(roleEditor.field("id")).toHaveValue(id);
  await expect(roleEditor.field("id")).toHaveAttribute("readonly", "");

  const file = path.join(astrionHome, "agents", `${id}.md`);
  expect(fs.existsSync(file)).toBe(true);
  const onDisk = readRoleFile(astrionHome, id);
  expect(onDisk.frontmatter).toMatchObject({
    id,
    name: "Code Reviewer",
    description: "Reviews changes for bugs and risky patterns.",
    model: "offline",
    thinking_mode: "thinking",
    max_concurrency: 2,
  });
  const capabilities = onDisk.frontmatter.capabilities;
  const capabilityList = Array.isArray(capabilities) ? capabilities : String(capabilities).split(/[|,\s]+/);
  expect(capabilityList).toEqual(["code-review", "python", "security"]);
  const tools = onDisk.frontmatter.tools;
  expect(Array.isArray(tools) ? tools : String(tools).split(/\s*,\s*/)).toEqual(["read_file", "search_files"]);
  expect(onDisk.frontmatter.permissions).toEqual(["read", "write"]);
  expect(onDisk.body).toContain("Point out **bugs** first.");
});

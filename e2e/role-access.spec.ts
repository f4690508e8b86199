/**
 * What a role card and the role form say a role's agents are given: the shipped roles by their
 * permissions, an imported Claude Code role by its `tools:`, exactly as the runtime reads them
 * (lib/roles/tool-mapping).
 */
import { expect, test, uniqueSuffix } from "./fixtures";

test("the shipped roles' cards count the project tools their permissions give", async ({ roleLibrary }) => {
  await roleLibrary.goto();
  const reviewer = roleLibrary.card("code-reviewer");
  await expect(reviewer.getByTestId("role-card-tools")).toHaveText("3 project tools");
  await expect(reviewer.getByTestId("role-card-tools")).toHaveAttribute("title", "list_files, read_file, search_files");
  await expect(reviewer.getByTestId("role-card-permissions")).toHaveText("read");
  const engineer = roleLibrary.card("full-stack-engineer");
  await expect(engineer.getByTestId("role-card-tools")).toHaveText("5 project tools");
  await expect(engineer.getByTestId("role-card-permissions")).toHaveText("read · write · execute");
});

test("an imported role whose tools: read files shows read, ticked in the form and decided by Tools", async ({ page, roleLibrary, roleEditor }) => {
  const id = `claude-reader-${uniqueSuffix()}`;
  await roleLibrary.goto();
  await roleLibrary.importFile(`${id}.md`, "---\nname: Claude Reader\ndescription: Reads the code.\ntools: Read, Grep, Glob\ncolor: green\n---\nRead.\n");
  await expect(page).toHaveURL(new RegExp(`/roles/${id}$`));

  const read = page.getByTestId("role-field-permission-read");
  const write = page.getByTestId("role-field-permission-write");
  await expect(read).toBeChecked();
  await expect(read).toBeDisabled();
  await expect(write).not.toBeChecked();
  await expect(page.getByTestId("role-permissions-from-tools")).toBeVisible();

  // Tools decide as they are typed: Edit adds write.
  await roleEditor.field("tools").fill("Read, Edit");
  await expect(write).toBeChecked();
  // Cleared, the file's own permissions (none written) are back and editable.
  await roleEditor.field("tools").fill("");
  await expect(read).toBeEnabled();
  await expect(read).not.toBeChecked();
  await expect(page.getByTestId("role-permissions-from-tools")).toHaveCount(0);

  await roleLibrary.goto();
  const card = roleLibrary.card(id);
  await expect(card.getByTestId("role-card-permissions")).toHaveText("read");
  await expect(card.getByTestId("role-card-tools")).toHaveText("3 project tools");
});

test("an imported role with tools: Edit, Write shows write and one project tool", async ({ roleLibrary }) => {
  const id = `claude-writer-${uniqueSuffix()}`;
  await roleLibrary.goto();
  await roleLibrary.importFile(`${id}.md`, "---\nname: Claude Writer\ndescription: Edits the code.\ntools: Edit, Write\n---\nWrite.\n");
  await roleLibrary.goto();
  const card = roleLibrary.card(id);
  await expect(card.getByTestId("role-card-permissions")).toHaveText("write");
  await expect(card.getByTestId("role-card-tools")).toHaveText("1 project tool");
});

import fs from "node:fs";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";

const role = (name: string, tools: string) => `---\nname: ${name}\ndescription: The ${name} role\ntools: ${tools}\n---\n\nYou help.\n`;

test("a role file whose name is no valid id is listed with its tools mapping and renamed in one click", async ({ page, roleLibrary, roleEditor, astrionHome }) => {
  const suffix = uniqueSuffix();
  const agents = path.join(astrionHome, "agents");
  fs.mkdirSync(agents, { recursive: true });
  const file = `Power Shell 5.1 ${suffix}.md`;
  const id = `power-shell-5-1-${suffix}`;
  fs.writeFileSync(path.join(agents, file), role(`PowerShell ${suffix}`, "Read, Bash, mcp__github__create_issue"), "utf8");

  await roleLibrary.goto();
  const card = page.locator(`[data-testid="role-card"][data-file="${file}"]`);
  await expect(card).toBeVisible();
  const lines = card.getByTestId("role-tool-mapping-line");
  await expect(lines).toHaveText(["Read → list_files, read_file, search_files", "Bash → run_command", "⚠ mcp__github__create_issue → MCP server github is not declared in mcp.json"]);
  await expect(card.getByTestId("role-tool-mapping-summary")).toContainText("run_command (asks a person unless allowed)");
  await expect(card.getByTestId("role-tool-mapping-summary")).toContainText("1 tool warnings");
  await expect(card.getByTestId("role-rename-fix")).toHaveText(`Rename to ${id}`);

  await card.getByTestId("role-rename-fix").click();
  await expect(roleLibrary.card(id)).toBeVisible();
  await expect(roleLibrary.card(id).getByTestId("role-rename-fix")).toHaveCount(0);
  await expect(page.locator(`[data-file="${file}"]`)).toHaveCount(0);
  expect(fs.existsSync(path.join(agents, file))).toBe(false);
  expect(fs.readFileSync(path.join(agents, `${id}.md`), "utf8")).toBe(role(`PowerShell ${suffix}`, "Read, Bash, mcp__github__create_issue"));

  // The editor shows the same mapping, and follows the tools field as it is typed.
  await roleLibrary.card(id).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/roles/${id}$`));
  const mapping = page.getByTestId("role-editor-tool-mapping");
  await expect(mapping.getByTestId("role-tool-mapping-line")).toHaveCount(3);
  await roleEditor.field("tools").fill("Read, Write, Frobnicate");
  await expect(mapping.getByTestId("role-tool-mapping-line")).toHaveText(["Read → list_files, read_file, search_files", "Write → write_file", "⚠ Frobnicate → unknown tool: ignored"]);
  await expect(mapping.getByTestId("role-tool-mapping-summary")).toContainText("list_files, read_file, search_files, write_file");
});

test("a misnamed role file can be opened, fixed in raw mode and deleted", async ({ page, roleLibrary, roleEditor, astrionHome }) => {
  const suffix = uniqueSuffix();
  const agents = path.join(astrionHome, "agents");
  fs.mkdirSync(agents, { recursive: true });
  const file = `Broken.Name ${suffix}.md`;
  fs.writeFileSync(path.join(agents, file), "---\nname: Broken\ndescription: Use it when: needed\n---\nBody\n", "utf8");

  await roleLibrary.goto();
  const card = page.locator(`[data-testid="role-error-card"][data-file="${file}"]`);
  await expect(card).toBeVisible();
  await card.getByRole("link").click();
  await expect(page.getByTestId("role-file")).toContainText(`agents/${file}`);
  await expect(page.getByTestId("role-raw-problem-message")).toContainText('description contains ": "');
  await expect(page.getByTestId("role-rename-fix")).toHaveText(`Rename to broken-name-${suffix}`);

  const fixed = role(`Fixed ${suffix}`, "Read");
  await roleEditor.raw.fill(fixed);
  await roleEditor.saveRaw();
  await expect(roleEditor.savedNotice).toBeVisible();
  expect(fs.readFileSync(path.join(agents, file), "utf8")).toBe(fixed);
  await expect(page.getByTestId("page-title")).toHaveText(`Fixed ${suffix}`);

  await page.getByTestId("role-delete").click();
  await page.getByTestId("role-delete-dialog-confirm").click();
  await expect(page).toHaveURL(/\/roles$/);
  expect(fs.existsSync(path.join(agents, file))).toBe(false);
});

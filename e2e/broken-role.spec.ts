import fs from "node:fs";
import path from "node:path";
import { expect, readRoleFile, test, uniqueSuffix } from "./fixtures";

test("a role file that does not parse is an error entry and can be fixed in raw mode", async ({
  page,
  roleLibrary,
  roleEditor,
  astrionHome,
}) => {
  const id = `e2e-broken-${uniqueSuffix()}`;
  const agents = path.join(astrionHome, "agents");
  fs.mkdirSync(agents, { recursive: true });
  const broken = `---\nname: Broken Helper\ndescription: [this list is never closed\n---\n\nYou help.\n`;
  fs.writeFileSync(path.join(agents, `${id}.md`), broken, "utf8");

  await roleLibrary.goto();
  const card = roleLibrary.errorCard(id);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("role-error-file")).toHaveText(`${id}.md`);
  await expect(card.getByTestId("role-error-message")).not.toBeEmpty();
  // the card says on which line of the file the problem is: where the unclosed [ opens
  await expect(card.getByTestId("role-error-line")).toHaveText("Line 3");

  await card.click();
  await expect(page).toHaveURL(new RegExp(`/roles/${id}$`));
  // An error entry has only the raw mode, with the parser's message above the text.
  await expect(page.getByTestId("role-raw-problem")).toBeVisible();
  await expect(page.getByTestId("role-form")).toHaveCount(0);
  await expect(page.getByTestId("role-mode-form")).toHaveCount(0);
  await expect(roleEditor.raw).toHaveValue(broken);

  const fixed = `---\nname: Broken Helper\ndescription: Helps, now that the list is closed.\n---\n\nYou help.\n`;
  await roleEditor.raw.fill(fixed);
  await roleEditor.saveRaw();

  // Once it loads, the editor switches to the form.
  await expect(roleEditor.savedNotice).toBeVisible();
  await expect(roleEditor.field("name")).toHaveValue("Broken Helper");
  await expect(roleEditor.field("id")).toHaveValue(id);
  expect(fs.readFileSync(path.join(agents, `${id}.md`), "utf8")).toBe(fixed);
  expect(readRoleFile(astrionHome, id).frontmatter.description).toBe("Helps, now that the list is closed.");

  await roleLibrary.goto();
  await expect(roleLibrary.card(id)).toBeVisible();
  await expect(roleLibrary.errorCard(id)).toHaveCount(0);
});

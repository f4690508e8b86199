import fs from "node:fs";
import path from "node:path";
import { expect, readRoleFile, test, uniqueSuffix } from "./fixtures";

const PROVIDES = `provides:
  - name: generate_test_cases
    description: Test cases for one module
    input:
      type: object
      properties:
        module: { type: string }
      required: [module]
`;

/** A role that provides an ability, under a unique id. */
function writeProvidingRole(home: string): string {
  const id = `tester-${uniqueSuffix()}`;
  fs.writeFileSync(path.join(home, "agents", `${id}.md`), `---\nname: Tester ${id}\ndescription: Writes test cases\n${PROVIDES}---\nYou test.\n`);
  return id;
}

test("a role's abilities show on its card and in the editor, and a form save keeps them", async ({ roleLibrary, roleEditor, astrionHome }) => {
  const id = writeProvidingRole(astrionHome);
  await roleLibrary.goto();
  const provides = roleLibrary.card(id).getByTestId("role-card-provides");
  await expect(provides).toContainText("Provides:");
  await expect(provides).toContainText("generate_test_cases");

  await roleEditor.goto(id);
  const section = roleEditor.page.getByTestId("role-provides");
  await expect(section).toContainText("Abilities this role provides");
  await expect(section.getByTestId("role-provides-item")).toHaveCount(1);
  await expect(section).toContainText("Test cases for one module");
  await expect(section).toContainText('"required": [');
  await expect(section).toContainText("No declared output");

  await roleEditor.field("description").fill("Writes better test cases");
  await roleEditor.save();
  await expect(roleEditor.savedNotice).toBeVisible();
  const file = readRoleFile(astrionHome, id);
  expect(file.frontmatter.description).toBe("Writes better test cases");
  expect(file.frontmatterText).toContain(PROVIDES.trimEnd());
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the card and the editor name the abilities in Chinese", async ({ roleLibrary, roleEditor, astrionHome }) => {
    const id = writeProvidingRole(astrionHome);
    await roleLibrary.goto();
    await expect(roleLibrary.card(id).getByTestId("role-card-provides")).toContainText("提供的能力");
    await roleEditor.goto(id);
    await expect(roleEditor.page.getByTestId("role-provides")).toContainText("此角色提供的能力");
    await expect(roleEditor.page.getByTestId("role-provides")).toContainText("输入 schema");
  });
});

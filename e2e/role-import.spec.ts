import fs from "node:fs";
import { expect, readRoleFile, test } from "./fixtures";

const SOURCE = "/work/shared/corpus/roles/team-lead.md";

test("an imported Claude Code role keeps its unknown fields and tools string through a form save", async ({
  page,
  roleLibrary,
  roleEditor,
  astrionHome,
}) => {
  const original = fs.readFileSync(SOURCE, "utf8");
  const id = "team-lead";
  await roleLibrary.goto();
  await roleLibrary.importFile(`${id}.md`, original);

  // Import opens the new role in the editor; `id` falls back to the file name.
  await expect(page).toHaveURL(new RegExp(`/roles/${id}$`));
  await expect(roleEditor.field("id")).toHaveValue(id);
  await expect(roleEditor.field("tools")).toHaveValue(/^Read, Glob, Grep, Bash/);
  // Claude Code's `color` is not a field of ours: shown read-only and kept.
  const extra = page.getByTestId("role-extra");
  await expect(extra).toContainText("color");
  await expect(extra).toContainText("blue");

  // Imported byte for byte.
  expect(fs.readFileSync(`${astrionHome}/agents/${id}.md`, "utf8")).toBe(original);

  const newDescription = "Coordinates a multi-agent team and merges their results.";
  await roleEditor.field("description").fill(newDescription);
  await roleEditor.save();
  await expect(roleEditor.savedNotice).toBeVisible();

  const after = readRoleFile(astrionHome, id);
  expect(after.frontmatter.description).toBe(newDescription);
  expect(after.frontmatter.color).toBe("blue");
  expect(after.frontmatter.model).toBe("fable");
  // The tools stay a comma string, exactly as Claude Code wrote them.
  const toolsLine = original.split("\n").find((l) => l.startsWith("tools:"));
  expect(toolsLine).toBeDefined();
  expect(after.frontmatterText.split("\n")).toContain(toolsLine);
  expect(typeof after.frontmatter.tools).toBe("string");

  // Only the description line changed.
  const before = original.split("\n");
  const now = after.text.split("\n");
  expect(now.length).toBe(before.length);
  const changed = now.flatMap((line, i) => (line === before[i] ? [] : [i]));
  expect(changed).toHaveLength(1);
  expect(now[changed[0] ?? -1]).toContain(newDescription);

  // The library card shows the color dot and "conversation model" is not used (model is set).
  await roleLibrary.goto();
  const card = roleLibrary.card(id);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("role-card-color")).toHaveAttribute("title", "blue");
  await expect(card).toContainText(newDescription);
});

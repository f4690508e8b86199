import fs from "node:fs";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";

/** A Claude Code role file with no `capabilities:` (from the imported corpus), under a unique id. */
function writeUntaggedRole(home: string): string {
  const id = `k8s-architect-${uniqueSuffix()}`;
  const source = fs.readFileSync("/work/shared/corpus/roles/kubernetes-operations__kubernetes-architect.md", "utf8");
  fs.writeFileSync(path.join(home, "agents", `${id}.md`), source);
  return id;
}

test("a role without capabilities shows the tags routing derived for it, marked derived", async ({ roleLibrary, astrionHome }) => {
  const id = writeUntaggedRole(astrionHome);
  await roleLibrary.goto();
  const card = roleLibrary.card(id);
  await expect(card).toBeVisible();
  const derived = card.getByTestId("role-card-derived");
  await expect(derived.getByTestId("role-card-derived-badge")).toHaveText("derived");
  await expect(derived.getByTestId("role-card-derived-tag").first()).toHaveText("kubernetes");
  await expect(derived.getByTestId("role-card-derived-tag")).toContainText(["kubernetes", "security-review"]);
  // A role that declares its capabilities shows them as they are, with no derived badge.
  const declared = roleLibrary.card("code-reviewer");
  await expect(declared).toContainText("code-review");
  await expect(declared.getByTestId("role-card-derived")).toHaveCount(0);
  // The filter finds the role by a derived tag.
  await roleLibrary.page.getByTestId("role-search").fill("security-review");
  await expect(card).toBeVisible();
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("the derived badge reads 推导", async ({ roleLibrary, astrionHome }) => {
    const id = writeUntaggedRole(astrionHome);
    await roleLibrary.goto();
    await expect(roleLibrary.card(id).getByTestId("role-card-derived-badge")).toHaveText("推导");
  });
});

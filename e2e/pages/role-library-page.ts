import { expect, type Locator, type Page } from "@playwright/test";

/** `/roles`: the role library. */
export class RoleLibraryPage {
  constructor(readonly page: Page) {}

  async goto() {
    await this.page.goto("/roles");
    await expect(this.page.getByTestId("page-title")).toBeVisible();
  }

  card(id: string): Locator {
    return this.page.locator(`[data-testid="role-card"][data-role-id="${id}"]`);
  }

  errorCard(id: string): Locator {
    return this.page.locator(`[data-testid="role-error-card"][data-role-id="${id}"]`);
  }

  /** Imports a role file through the "Import .md" file input. */
  async importFile(fileName: string, content: string) {
    await this.page.getByTestId("role-import-input").setInputFiles({
      name: fileName,
      mimeType: "text/markdown",
      buffer: Buffer.from(content, "utf8"),
    });
  }
}

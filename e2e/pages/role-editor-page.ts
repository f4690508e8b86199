import { expect, type Locator, type Page } from "@playwright/test";

/** `/roles/new` and `/roles/[id]`: the role form, raw mode and their messages. */
export class RoleEditorPage {
  constructor(readonly page: Page) {}

  async gotoNew() {
    await this.page.goto("/roles/new");
    await expect(this.page.getByTestId("role-form")).toBeVisible();
  }

  async goto(id: string) {
    await this.page.goto(`/roles/${id}`);
  }

  field(name: "id" | "name" | "description" | "model" | "capabilities" | "tools" | "max-concurrency"): Locator {
    return this.page.getByTestId(`role-field-${name}`);
  }

  /** The inline validation message beside a field. */
  error(name: "id" | "name" | "description" | "model" | "capabilities" | "tools" | "permissions" | "max-concurrency"): Locator {
    return this.page.getByTestId(`role-error-${name}`);
  }

  get body(): Locator {
    return this.page.getByTestId("role-body");
  }

  get raw(): Locator {
    return this.page.getByTestId("role-raw");
  }

  get savedNotice(): Locator {
    return this.page.getByTestId("role-saved");
  }

  async save() {
    await this.page.getByTestId("role-save").click();
  }

  async saveRaw() {
    await this.page.getByTestId("role-raw-save").click();
  }
}

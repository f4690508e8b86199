import { expect, type Locator, type Page } from "@playwright/test";

/** `/`: the conversation index and its "New conversation" form. */
export class ConversationIndexPage {
  constructor(readonly page: Page) {}

  async goto() {
    await this.page.goto("/");
    await expect(this.page.getByTestId("page-title")).toBeVisible();
  }

  row(title: string): Locator {
    return this.page.getByTestId("conversation-row").filter({
      has: this.page.getByTestId("conversation-link").getByText(title, { exact: true }),
    });
  }

  async filter(status: "active" | "archived" | "all") {
    await this.page.getByTestId(`conversation-filter-${status}`).click();
    await expect(this.page.getByTestId(`conversation-filter-${status}`)).toHaveAttribute("aria-pressed", "true");
  }

  async openNewForm() {
    await this.page.getByTestId("new-conversation-open").click();
    await expect(this.page.getByTestId("new-conversation-form")).toBeVisible();
  }

  async fillNewForm(values: { title: string; projectPath: string; runMode?: "fast" | "thinking" | "deep"; goal?: string }) {
    await this.page.getByTestId("new-conversation-title").fill(values.title);
    await this.page.getByTestId("new-conversation-project-path").fill(values.projectPath);
    if (values.goal !== undefined) await this.page.getByTestId("new-conversation-goal").fill(values.goal);
    // The model select is filled from /api/models; wait for it so the default model is chosen.
    await expect(this.page.getByTestId("new-conversation-model")).toBeEnabled();
    if (values.runMode) await this.page.getByTestId("new-conversation-run-mode").getByText(runModeLabel(values.runMode)).click();
  }

  async submitNewForm() {
    await this.page.getByTestId("new-conversation-submit").click();
  }
}

function runModeLabel(mode: "fast" | "thinking" | "deep"): string {
  return { fast: "Fast", thinking: "Thinking", deep: "Deep" }[mode];
}

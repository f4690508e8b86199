import { expect, type Locator, type Page } from "@playwright/test";

/** `/search`: the history search over every conversation's messages. */
export class SearchPage {
  constructor(readonly page: Page) {}

  /** Opens the search from the conversation index's header. */
  async openFromIndex() {
    await this.page.goto("/");
    await this.page.getByTestId("history-search-link").click();
    await expect(this.page).toHaveURL(/\/search$/);
    await expect(this.page.getByTestId("search-input")).toBeVisible();
  }

  async search(text: string) {
    await this.page.getByTestId("search-input").fill(text);
  }

  get hits(): Locator {
    return this.page.getByTestId("search-hit");
  }

  /** Hits of the Team Leader's chat (`leader`) or of sub-agent `agentId`. */
  hitsOf(agent: "leader" | string): Locator {
    return this.page.locator(`[data-testid="search-hit"][data-agent-id="${agent === "leader" ? "" : agent}"]`);
  }
}

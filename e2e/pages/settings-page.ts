import type { Locator, Page } from "@playwright/test";

/** Settings → MCP servers. */
export class McpSettingsPage {
  readonly page: Page;
  readonly section: Locator;

  constructor(page: Page) {
    this.page = page;
    this.section = page.getByTestId("settings-mcp");
  }

  async goto(): Promise<void> {
    await this.page.goto("/settings");
  }

  /** Adds a stdio server through the form. */
  async addStdio(name: string, command: string, env: string): Promise<void> {
    await this.section.getByTestId("mcp-add").click();
    const form = this.section.getByTestId("mcp-form");
    await form.getByTestId("mcp-field-name").fill(name);
    await form.getByTestId("mcp-field-command").fill(command);
    await form.getByTestId("mcp-field-env").fill(env);
    await form.getByTestId("mcp-save").click();
  }

  server(name: string): Locator {
    return this.section.locator(`[data-testid="mcp-server"][data-name="${name}"]`);
  }
}

/**
 * Settings → MCP servers in a real browser: add the everything server (a literal secret in its
 * env), test the connection and see its tools with their descriptions; the secret is shown
 * masked and kept on disk through an edit; remove the server.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";
import { McpSettingsPage } from "./pages/settings-page";

const EVERYTHING = path.join(process.cwd(), "node_modules", ".bin", "mcp-server-everything");

test("add a server, test its connection, see its tools, edit keeps the secret, remove it", async ({ page, astrionHome }) => {
  const settings = new McpSettingsPage(page);
  const name = `ev-${uniqueSuffix()}`;
  const secret = `sk-e2e-${uniqueSuffix()}-secret`;
  await settings.goto();
  await settings.addStdio(name, EVERYTHING, `TOKEN=${secret}`);
  const card = settings.server(name);
  await expect(card).toBeVisible();
  await expect(card.getByTestId("mcp-status")).toHaveText("configured");
  const onDisk = () => JSON.parse(fs.readFileSync(path.join(astrionHome, "mcp.json"), "utf8")).mcpServers[name];
  expect(onDisk().env.TOKEN).toBe(secret);

  await card.getByTestId("mcp-test").click();
  await expect(card.getByTestId("mcp-test-result")).toContainText(/Connected: \d+ tools/);
  const echo = card.locator('[data-testid="mcp-tool"][data-tool="echo"]');
  await expect(echo).toContainText(`mcp__${name}__echo`);
  await expect(echo).toContainText(/echo/i);
  await expect(echo).toContainText("read");
  await expect(page.locator("body")).not.toContainText(secret);

  // Edit: the secret shows masked and saving keeps it.
  await card.getByTestId("mcp-edit").click();
  const env = card.getByTestId("mcp-field-env");
  await expect(env).toHaveValue("TOKEN=••••••••");
  await env.fill("TOKEN=••••••••\nMODE=test");
  await card.getByTestId("mcp-save").click();
  await expect(card.getByTestId("mcp-form")).toHaveCount(0);
  expect(onDisk().env).toEqual({ TOKEN: secret, MODE: "test" });

  await card.getByTestId("mcp-remove").click();
  await page.getByTestId("mcp-remove-dialog-confirm").click();
  await expect(card).toHaveCount(0);
  expect(onDisk()).toBeUndefined();
});

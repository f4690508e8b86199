/**
 * A conversation on a dead endpoint, in a real browser: the leader's model call fails and the
 * error banner offers what to do about it in place — "Test connection" runs the connection doctor
 * on the model that failed (its server line red, with the fix), and "Change model" moves the
 * conversation to another model, on which the next message is answered.
 */
import { expect, test, uniqueSuffix, addDeadModel } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";

addDeadModel("dead");

test("a dead endpoint's banner tests the connection and changes the model in place", async ({ page, projectDir }) => {
  await page.goto("/");
  await page.getByTestId("new-conversation-open").click();
  await page.getByTestId("new-conversation-model").selectOption("dead");
  await page.getByTestId("new-conversation-title").fill(`Dead ${uniqueSuffix()}`);
  await page.getByTestId("new-conversation-project-path").fill(projectDir);
  await page.getByTestId("new-conversation-submit").click();
  await expect(page).toHaveURL(/\/conversations\/conv_/);
  const conv = new ConversationPage(page);
  await conv.send("Say hello");

  const banner = page.locator('[data-testid="notice-banner"][data-code="model_error"]').first();
  await expect(banner).toBeVisible({ timeout: 60_000 });
  const actions = banner.getByTestId("notice-model-actions");
  await actions.getByTestId("doctor-run").click();
  const server = actions.locator('[data-testid="doctor-line"][data-check="server"]');
  await expect(server).toHaveAttribute("data-status", "red", { timeout: 30_000 });
  await expect(server).toContainText("Nothing answers at");

  await actions.getByTestId("notice-model-change").click();
  await actions.getByTestId("notice-model-select").selectOption("offline");
  await actions.getByTestId("notice-model-save").click();
  await expect(page.getByTestId("model-label")).toContainText("offline");
  const answered = await conv.messages.count();
  await conv.send("Say hello again");
  await expect.poll(async () => conv.messages.count(), { timeout: 60_000 }).toBeGreaterThan(answered + 1);
});

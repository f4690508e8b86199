/**
 * Token mode in a real browser: a server of its own started with ASTRION_TOKEN (a temp data
 * folder, a free port). The sign-in page must load its scripts (it is useless without them), a
 * wrong token is refused, `?next=` cannot send the browser to another site, the right token lets
 * the person work, and "Sign out" ends the session.
 */
import { expect, test } from "@playwright/test";
import { startServer, tempDir, type TestServer } from "../test/helpers/server";

const TOKEN = "e2e-token-correct-horse-battery-staple";
let server: TestServer;

test.beforeAll(async () => {
  test.setTimeout(200_000);
  server = await startServer({ env: { ASTRION_TOKEN: TOKEN } });
});

test.afterAll(async () => {
  await server?.stop();
});

test("sign in with the token, work, and sign out", async ({ page }) => {
  const failedAssets: string[] = [];
  page.on("response", (res) => {
    if (res.url().includes("/_next/static/") && res.status() !== 200) failedAssets.push(`${res.status()} ${res.url()}`);
  });
  // Nothing may ever be loaded from another site.
  await page.route((url) => url.hostname !== "127.0.0.1", (route) => route.abort());

  // Opening the app sends the browser to the sign-in page, which works: its scripts loaded
  // (the submit button only enables once React runs).
  await page.goto(`${server.url}/`);
  await expect(page).toHaveURL(`${server.url}/signin?next=%2F`);
  await expect(page.getByTestId("page-title")).toHaveText("Sign in");
  await expect(page.getByTestId("signout")).toHaveCount(0);
  await expect(page.getByTestId("signin-submit")).toBeDisabled();

  // A link carrying an open redirect (a tab before the second slash: Chromium reads //evil).
  await page.goto(`${server.url}/signin?next=%2F%09%2Fevil.example`);
  await page.getByTestId("signin-token").fill("not-the-token");
  await expect(page.getByTestId("signin-submit")).toBeEnabled();
  await page.getByTestId("signin-submit").click();
  await expect(page.getByTestId("signin-error")).toContainText("That token is not right.");
  await expect(page).toHaveURL(/\/signin\?/);

  await page.getByTestId("signin-token").fill(TOKEN);
  await page.getByTestId("signin-submit").click();
  await expect(page).toHaveURL(`${server.url}/`);
  await expect(page.getByTestId("main-nav")).toBeVisible();

  // Signed in: the app works. A new conversation opens, and settings show the full health report.
  const title = `Token mode ${Date.now().toString(36)}`;
  // A click that lands before the page is hydrated does nothing: click until the form opens.
  await expect(async () => {
    await page.getByTestId("new-conversation-open").click();
    await expect(page.getByTestId("new-conversation-title")).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByTestId("new-conversation-title").fill(title);
  await page.getByTestId("new-conversation-project-path").fill(tempDir("astrion-e2e-project-"));
  await expect(page.getByTestId("new-conversation-model")).toBeEnabled();
  await page.getByTestId("new-conversation-submit").click();
  await expect(page).toHaveURL(/\/conversations\/conv_\d{8}_\d{6}_\d{3,}$/);
  await expect(page.getByTestId("conversation-title")).toHaveText(title);
  await page.getByTestId("nav-settings").click();
  await expect(page.getByText(server.home)).toBeVisible();

  // "Sign out" is in the header (in both languages) and ends the session.
  await page.getByTestId("locale-zh-CN").click();
  await expect(page.getByTestId("signout")).toHaveText("退出登录");
  await page.getByTestId("locale-en").click();
  await expect(page.getByTestId("signout")).toHaveText("Sign out");
  await page.getByTestId("signout").click();
  await expect(page).toHaveURL(`${server.url}/signin`);
  expect((await page.context().cookies(server.url)).filter((c) => c.name === "astrion_token")).toEqual([]);
  expect((await page.request.get(`${server.url}/api/roles`)).status()).toBe(401);

  // A same-origin `next` is honoured: the protected page asked for is where sign-in returns to.
  await page.goto(`${server.url}/settings`);
  await expect(page).toHaveURL(`${server.url}/signin?next=%2Fsettings`);
  await page.getByTestId("signin-token").fill(TOKEN);
  await page.getByTestId("signin-submit").click();
  await expect(page).toHaveURL(`${server.url}/settings`);

  expect(failedAssets).toEqual([]);
});

test("no ?next= value leads the browser off this origin", async ({ page }) => {
  await page.route((url) => url.hostname !== "127.0.0.1", (route) => route.abort());
  const hostile = ["//evil.example", "/\\evil.example", "/%09/evil.example", "%2F%2Fevil.example", "https:evil.example", "/\t/evil.example", "javascript:alert(1)", "/\r\n/evil.example"];
  for (const next of hostile) {
    await page.goto(`${server.url}/signin?next=${encodeURIComponent(next)}`);
    await page.getByTestId("signin-token").fill(TOKEN);
    await page.getByTestId("signin-submit").click();
    await expect(page, next).toHaveURL(`${server.url}/`);
    await expect(page.getByTestId("main-nav")).toBeVisible();
    await page.context().clearCookies(); // signed out again for the next value
  }
});

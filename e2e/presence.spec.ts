/**
 * Presence in real browsers (issue 32): a server of its own in team mode (ASTRION_TOKEN, a temp
 * data folder, the built-in offline model), two browser contexts signed in as two people: the
 * owner Mei (English) and the editor Ann (Chinese). Each sees the other's avatar within 2 s of
 * opening the page; typing in one composer shows "typing…" under the other's, which stops once
 * the message is sent; the index counts the people in the conversation; a closed tab is gone at
 * once (well within 30 s), and a tab whose network is lost (`context.setOffline`), whose
 * acknowledgments stop, within 30 s (and is back once it is online again).
 */
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { en } from "../lib/i18n/dictionaries/en";
import { zhCN } from "../lib/i18n/dictionaries/zh-cn";
import { startServer, tempDir, type TestServer } from "../test/helpers/server";

const TOKEN = "e2e-presence-token-correct-horse-battery";
const PASSWORD = "e2e-presence-password";
const JSON_HEADERS = { "content-type": "application/json" };

let server: TestServer;

test.beforeAll(async () => {
  test.setTimeout(200_000);
  server = await startServer({ home: tempDir("astrion-e2e-presence-"), env: { ASTRION_TOKEN: TOKEN, ASTRION_OWNER_NAME: "Mei" } });
});

test.afterAll(async () => {
  await server?.stop();
});

/**
 * A browser context of its own (its cookies, its language). No request interception: routing
 * every request through Playwright would add to the 2 s this spec holds the page to.
 */
async function contextOf(browser: Browser, locale: string): Promise<BrowserContext> {
  return browser.newContext({ locale });
}

/** The owner, signed in with the token (the sign-in route sets the cookie in this context). */
async function owner(browser: Browser): Promise<BrowserContext> {
  const context = await contextOf(browser, "en-US");
  const res = await context.request.post(`${server.url}/api/auth/signin`, { headers: { ...JSON_HEADERS, origin: server.url }, data: { token: TOKEN } });
  expect(res.status()).toBe(200);
  return context;
}

/** A person invited by the owner with `role`, joined and signed in in a context of their own. */
async function invited(browser: Browser, role: string, name: string, locale: string): Promise<{ context: BrowserContext; id: string }> {
  const invitation = await server.api("POST", "/api/people", { role }, { authorization: `Bearer ${TOKEN}` });
  expect(invitation.status).toBe(201);
  const context = await contextOf(browser, locale);
  const joined = await context.request.post(`${server.url}/api/people/join`, { headers: { ...JSON_HEADERS, origin: server.url }, data: { token: invitation.json.token, name, password: PASSWORD } });
  expect(joined.status()).toBe(201);
  return { context, id: (await joined.json()).person.id as string };
}

async function openConversation(context: BrowserContext, id: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}/conversations/${id}`);
  return page;
}

test("two people see each other, typing and the index count; a closed tab and a lost network are gone within 30 s", async ({ browser }) => {
  test.setTimeout(180_000);
  const mei = await owner(browser);
  const ann = await invited(browser, "editor", "Ann Lee", "zh-CN");
  const created = await mei.request.post(`${server.url}/api/conversations`, { headers: { ...JSON_HEADERS, origin: server.url }, data: { title: "Presence", project_path: tempDir("astrion-e2e-presence-project-"), model_key: "offline" } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).conversation.id as string;

  const meiPage = await openConversation(mei, id);
  await expect(meiPage.getByTestId("leader-chat")).toBeVisible();
  // Alone: nobody else is shown.
  await expect(meiPage.getByTestId("presence-bar")).toHaveCount(0);
  const annPage = await openConversation(ann.context, id);
  // Each sees the other within 2 s of opening the page: avatar (initials) and name.
  const annOnMei = meiPage.getByTestId(`presence-person-${ann.id}`);
  await expect(annOnMei).toBeVisible({ timeout: 2_000 });
  await expect(annOnMei).toContainText("AL");
  await expect(annOnMei.getByTestId("presence-name")).toHaveText("Ann Lee");
  const meiOnAnn = annPage.getByTestId("presence-person-owner");
  await expect(meiOnAnn).toBeVisible({ timeout: 2_000 });
  await expect(meiOnAnn.getByTestId("presence-name")).toHaveText("Mei");
  await expect(annPage.getByTestId("presence-bar")).toContainText(zhCN["presence.label"]);
  // Neither is shown to themself.
  await expect(meiPage.getByTestId("presence-person-owner")).toHaveCount(0);

  // Mei types to the leader: Ann's page says so in Chinese; sending stops it.
  const composer = meiPage.getByTestId("composer-input");
  await composer.pressSequentially("Please look at the README", { delay: 30 });
  const typingOnAnn = annPage.getByTestId("typing-indicator");
  await expect(typingOnAnn.getByTestId("typing-text")).toHaveText(zhCN["presence.typingOne"].replace("{name}", "Mei"));
  await expect(meiPage.getByTestId("typing-indicator")).toHaveCount(0);
  await composer.press("Enter");
  await expect(composer).toHaveValue("");
  await expect(typingOnAnn).toHaveCount(0);
  // Ann types; she stops without sending, and "typing…" goes a few seconds later.
  await annPage.getByTestId("composer-input").pressSequentially("我来看看", { delay: 30 });
  const typingOnMei = meiPage.getByTestId("typing-indicator");
  await expect(typingOnMei.getByTestId("typing-text")).toHaveText(en["presence.typingOne"].replace("{name}", "Ann Lee"));
  await expect(typingOnMei).toHaveCount(0, { timeout: 15_000 });

  // The index counts the people in the conversation (Mei's index tab is not in it).
  const meiIndex = await mei.newPage();
  await meiIndex.goto(`${server.url}/`);
  const row = meiIndex.locator(`[data-testid="conversation-row"][data-conversation-id="${id}"]`);
  await expect(row.getByTestId("conversation-presence")).toHaveText(en["presence.count"].replace("{n}", "2"));
  const annIndex = await ann.context.newPage();
  await annIndex.goto(`${server.url}/`);
  await expect(annIndex.locator(`[data-testid="conversation-row"][data-conversation-id="${id}"]`).getByTestId("conversation-presence")).toHaveText(zhCN["presence.count"].replace("{n}", "2"));

  // Ann closes her tab: she is gone from Mei's page, and from the count, well before the 25 s
  // acknowledgment timeout (the page closes its stream on pagehide, the server sees it at once).
  await annPage.close();
  await expect(annOnMei).toHaveCount(0, { timeout: 10_000 });
  await expect(row.getByTestId("conversation-presence")).toHaveText(en["presence.count"].replace("{n}", "1"));
  // Mei's conversation tab to the front again: a background tab is throttled by the browser.
  await meiIndex.close();
  await annIndex.close();
  await meiPage.bringToFront();

  // Ann opens it again, then loses the network: her acknowledgments stop, she is dropped within 30 s.
  const annAgain = await openConversation(ann.context, id);
  await expect(annOnMei).toBeVisible();
  await expect(annAgain.getByTestId("presence-person-owner")).toBeVisible();
  await ann.context.setOffline(true);
  await expect(annOnMei).toHaveCount(0, { timeout: 30_000 });
  // Back online, her page registers again (its stream reconnects, or its next acknowledgment is
  // answered "unknown" and it reopens the stream).
  await ann.context.setOffline(false);
  await expect(annOnMei).toBeVisible({ timeout: 30_000 });
  await ann.context.close();
  await mei.close();
});

/**
 * History search in the browser: a goal given to the offline team, a search from the conversation
 * index's header, a hit clicked — the conversation opens scrolled to the highlighted message; a
 * sub-agent's hit opens that agent's drawer at the message.
 */
import type { APIRequestContext, Locator } from "@playwright/test";
import { expect, test as base, uniqueSuffix } from "./fixtures";
import { SearchPage } from "./pages/search-page";

const JSON_HEADERS = { "content-type": "application/json" };

const test = base.extend<{ searchPage: SearchPage }>({
  searchPage: async ({ page }, provide) => provide(new SearchPage(page)),
});

type Hit = { agent_id: number | null; message_id: string; message_role: string };

async function hits(request: APIRequestContext, q: string): Promise<Hit[]> {
  const res = await request.get(`/api/search?${new URLSearchParams({ q }).toString()}`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { hits: Hit[] }).hits;
}

/** Whether `row` is inside the visible part of its scrolling chat, and the chat is not at its bottom. */
async function shownAwayFromBottom(scroller: Locator, row: Locator): Promise<{ inView: boolean; atBottom: boolean }> {
  const rowBox = await row.boundingBox();
  const box = await scroller.boundingBox();
  const atBottom = await scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 64);
  const inView = !!rowBox && !!box && rowBox.y >= box.y - 1 && rowBox.y < box.y + box.height;
  return { inView, atBottom };
}

test("a search hit opens its conversation scrolled to the highlighted message, a sub-agent's in its drawer", async ({ page, request, searchPage, projectDir }) => {
  const word = `zephyr${uniqueSuffix()}`;
  const created = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title: `Search ${word}`, project_path: projectDir, model_key: "offline" } });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
  const sent = await request.post(`/api/conversations/${id}/messages`, { headers: JSON_HEADERS, data: { content: `Review the ${word} landing page copy` } });
  expect(sent.status()).toBe(202);
  // The goal reaches a sub-agent in its task.
  await expect.poll(async () => (await hits(request, word)).some((h) => h.agent_id !== null), { timeout: 45_000 }).toBe(true);
  // A long message after it, so the chat, which follows its bottom, does not show the first one by itself.
  const filler = Array.from({ length: 90 }, (_, i) => `Note ${i + 1}: nothing to see on this line.`).join("\n");
  expect((await request.post(`/api/conversations/${id}/messages`, { headers: JSON_HEADERS, data: { content: filler } })).status()).toBe(202);

  await searchPage.openFromIndex();
  await searchPage.search(word);
  const person = searchPage.hitsOf("leader").filter({ hasText: "landing page copy" }).first();
  await expect(person).toBeVisible();
  await expect(person.getByTestId("search-hit-snippet").locator("mark")).toHaveText([word]);
  const personId = await person.getAttribute("data-message-id");
  expect(personId).toMatch(/^msg_/);
  await person.getByTestId("search-hit-link").click();

  await expect(page).toHaveURL(new RegExp(`/conversations/${id}\\?message=${personId}$`));
  const leaderChat = page.getByTestId("leader-messages");
  const target = leaderChat.locator('[data-search-target="true"]');
  await expect(target).toHaveCount(1);
  await expect(target).toHaveAttribute("data-message-id", personId!);
  await expect(target).toContainText(word);
  await expect.poll(() => shownAwayFromBottom(leaderChat, target)).toEqual({ inView: true, atBottom: false });

  // Back to the results: the sub-agent's message opens its drawer, scrolled to it.
  await page.goBack();
  await expect(searchPage.hits.first()).toBeVisible();
  const agentHit = searchPage.page.locator('[data-testid="search-hit"]:not([data-agent-id=""])').first();
  const agentId = await agentHit.getAttribute("data-agent-id");
  const agentMessageId = await agentHit.getAttribute("data-message-id");
  await agentHit.getByTestId("search-hit-link").click();
  await expect(page).toHaveURL(new RegExp(`/conversations/${id}\\?message=${agentMessageId}&agent=${agentId}$`));
  const drawer = page.getByTestId("agent-drawer");
  await expect(drawer).toHaveAttribute("data-agent-id", agentId!);
  const agentTarget = drawer.locator('[data-search-target="true"]');
  await expect(agentTarget).toHaveAttribute("data-message-id", agentMessageId!);
  await expect(agentTarget).toBeInViewport();
  // The leader chat marks nothing when the hit is a sub-agent's.
  await expect(leaderChat.locator('[data-search-target="true"]')).toHaveCount(0);
});

test("the search page shows the filters, and an empty result (not an error) for hostile text", async ({ page, searchPage }) => {
  await searchPage.openFromIndex();
  await searchPage.search(`"NEAR( * -:`);
  await expect(page.getByTestId("search-empty")).toBeVisible();
  await expect(page.getByTestId("search-error")).toHaveCount(0);
  for (const f of ["status", "agent", "role", "model", "message-role", "from", "to"]) await expect(page.getByTestId(`search-filter-${f}`)).toBeVisible();
});

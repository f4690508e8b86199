/**
 * Cost beside tokens in the browser, in English and in Chinese: a team run on a fake
 * OpenAI-compatible model with prices (added to the server's models.json) shows its cost on the
 * conversation page (total, per agent, per model, cached input beside input), in the agent's card
 * and drawer, and in the conversation index; the same run on a model without prices shows tokens
 * only, with no cost anywhere.
 */
import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test, uniqueSuffix } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../test/helpers/fake-openai";

const JSON_HEADERS = { "content-type": "application/json" };
const suffix = uniqueSuffix();
const PRICED = `e2e-priced-${suffix}`;
const PLAIN = `e2e-plain-${suffix}`;
const ROLE_ID = `coster-${suffix}`;
/** Every call: 1,000 input tokens (600 cached), 100 output → (400 × 2 + 600 × 0.5 + 100 × 8) / 1e6 = $0.0019 at PRICES. */
const PRICES = { input: 2, cached_input: 0.5, output: 8 };
const USAGE = { prompt_tokens: 1_000, completion_tokens: 100, total_tokens: 1_100, prompt_tokens_details: { cached_tokens: 600 } };

type Msg = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string } }> };

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  const called = (name: string) => messages.some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));
  const isLeader = ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");
  if (isLeader) {
    if (!called("create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: ROLE_ID, task: "Read the README." } }], { usage: USAGE });
    const reported = messages.some((m) => m.role === "user" && String(m.content ?? "").includes("的任务完成汇报\nid: "));
    return fakeText(reported ? "SUMMARY: the README was read." : "Waiting for the report.", { usage: USAGE });
  }
  if (!called("read_file")) return fakeToolCalls([{ name: "read_file", arguments: { path: "README.md" } }], { usage: USAGE });
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "The README says hello." } }], { usage: USAGE });
}

let fake: FakeOpenAI;

test.beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = process.env.E2E_ASTRION_HOME!;
  const file = path.join(home, "models.json");
  const models = JSON.parse(fs.readFileSync(file, "utf8")) as { models: Record<string, unknown> };
  models.models[PRICED] = { label: "Fake priced (cost spec)", base_url: fake.url, model: "fake-priced", prices: PRICES };
  models.models[PLAIN] = { label: "Fake unpriced (cost spec)", base_url: fake.url, model: "fake-plain" };
  fs.writeFileSync(file, JSON.stringify(models, null, 2));
  fs.writeFileSync(path.join(home, "agents", `${ROLE_ID}.md`), `---\nname: Coster ${suffix}\ndescription: Reads the README for the cost spec\n---\nYou read files.\n`);
});

test.afterAll(async () => {
  await fake?.close();
});

/** Creates a conversation on `modelKey`, runs a goal to the leader's summary, and returns its id. */
async function run(request: APIRequestContext, projectDir: string, title: string, modelKey: string): Promise<string> {
  fs.writeFileSync(path.join(projectDir, "README.md"), "# Hello\n\nA project for the cost spec.\n");
  const created = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title, project_path: projectDir, model_key: modelKey } });
  expect(created.status(), await created.text()).toBe(201);
  const id = ((await created.json()) as { conversation: { id: string } }).conversation.id;
  expect((await request.post(`/api/conversations/${id}/messages`, { headers: JSON_HEADERS, data: { content: "Read the README" } })).status()).toBe(202);
  await expect
    .poll(async () => ((await (await request.get(`/api/conversations/${id}`)).json()) as { conversation: { phase?: string } }).conversation.phase, { timeout: 60_000 })
    .toBe("IDLE");
  await expect
    .poll(async () => ((await (await request.get(`/api/conversations/${id}/messages`)).json()) as { messages: Msg[] }).messages.some((m) => String(m.content).startsWith("SUMMARY")), { timeout: 30_000 })
    .toBe(true);
  return id;
}

/** The leader's calls of a conversation: its total cost is that many × $0.0019 plus the agent's two calls. */
function leaderCalls(title: string): number {
  return fake.requests.filter((r) => r.body?.model === "fake-priced" && JSON.stringify(r.body?.tools ?? []).includes("create_sub_agent") && String((r.body?.messages as Msg[] | undefined)?.[0]?.content ?? "").includes(`Conversation: ${title}\n`)).length;
}

/** Dollars as the page writes them for sums under a cent (two significant digits), in a locale. */
function usd(amount: number, locale: string): string {
  expect(amount).toBeLessThan(0.01);
  return new Intl.NumberFormat(locale, { style: "currency", currency: "USD", maximumSignificantDigits: 2 }).format(amount);
}

async function checkPriced(page: Page, request: APIRequestContext, projectDir: string, locale: "en-US" | "zh-CN", words: { cost: string; cached: string; note: string }) {
  const title = `Cost ${locale} ${suffix}`;
  const id = await run(request, projectDir, title, PRICED);
  const total = usd(leaderCalls(title) * 0.0019 + 2 * 0.0019, locale);
  const agentCost = usd(0.0038, locale);
  const conversation = new ConversationPage(page);
  await conversation.goto(id);

  // The conversation page: totals with cached input beside input, the cost and what it means.
  const stats = page.getByTestId("token-stats");
  await expect(stats.getByTestId("token-cost")).toHaveText(total);
  await expect(stats.getByTestId("token-cached")).toContainText(words.cached);
  await expect(stats.getByTestId("token-cost-note")).toContainText(words.note);
  await expect(stats.getByTestId("token-no-prices")).toHaveCount(0);
  // Per model and per agent.
  await expect(stats.locator(`[data-testid="model-token-row"][data-model-key="${PRICED}"]`).getByTestId("usage-cost")).toHaveText(total);
  const agentCard = conversation.agents.first();
  const agentId = (await agentCard.getAttribute("data-agent-id")) ?? "";
  await expect(stats.locator(`[data-testid="token-row"][data-agent-key="agent_${agentId}"]`).getByTestId("usage-cost")).toHaveText(agentCost);
  await expect(agentCard.getByTestId("agent-cost")).toHaveText(agentCost);

  // The agent's drawer.
  await agentCard.click();
  await expect(conversation.drawer.getByTestId("drawer-cost")).toContainText(`${words.cost}: ${agentCost}`);
  await expect(conversation.drawer.getByTestId("drawer-cached")).toContainText(words.cached);
  await page.getByTestId("agent-drawer-close").click();

  // The index.
  await page.goto("/");
  const row = page.locator(`[data-testid="conversation-row"][data-conversation-id="${id}"]`);
  await expect(row.getByTestId("conversation-cost")).toContainText(total);
  await expect(row.getByTestId("conversation-tokens")).toBeVisible();
}

async function checkUnpriced(page: Page, request: APIRequestContext, projectDir: string, locale: string, noPrices: string) {
  const id = await run(request, projectDir, `Tokens only ${locale} ${suffix}`, PLAIN);
  const conversation = new ConversationPage(page);
  await conversation.goto(id);
  const stats = page.getByTestId("token-stats");
  await expect(stats.getByTestId("token-total")).toBeVisible();
  await expect(stats.getByTestId("token-no-prices")).toContainText(noPrices);
  await expect(stats.getByTestId("token-cost")).toHaveCount(0);
  await expect(stats.getByTestId("usage-cost")).toHaveCount(0);
  await expect(stats).not.toContainText("$");
  const agentCard = conversation.agents.first();
  await expect(agentCard.getByTestId("agent-tokens")).toBeVisible();
  await expect(agentCard.getByTestId("agent-cost")).toHaveCount(0);
  await agentCard.click();
  await expect(conversation.drawer.getByTestId("drawer-tokens")).toBeVisible();
  await expect(conversation.drawer.getByTestId("drawer-cost")).toHaveCount(0);
  await page.getByTestId("agent-drawer-close").click();
  await page.goto("/");
  const row = page.locator(`[data-testid="conversation-row"][data-conversation-id="${id}"]`);
  await expect(row.getByTestId("conversation-tokens")).toBeVisible();
  await expect(row.getByTestId("conversation-cost")).toHaveCount(0);
  await expect(row).not.toContainText("$");
}

test.describe("in English", () => {
  test("cost beside tokens on the conversation page, the agent drawer and the index", async ({ page, request, projectDir }) => {
    test.setTimeout(120_000);
    await checkPriced(page, request, projectDir, "en-US", { cost: "Cost", cached: "cached", note: "US dollars" });
  });

  test("tokens only, no cost, for a model without prices", async ({ page, request, projectDir }) => {
    test.setTimeout(120_000);
    await checkUnpriced(page, request, projectDir, "en-US", "tokens only");
  });
});

test.describe("in Chinese", () => {
  test.use({ locale: "zh-CN" });

  test("费用显示在会话页、智能体抽屉和会话列表中", async ({ page, request, projectDir }) => {
    test.setTimeout(120_000);
    await checkPriced(page, request, projectDir, "zh-CN", { cost: "费用", cached: "缓存", note: "美元" });
  });

  test("没有价格的模型只显示 token", async ({ page, request, projectDir }) => {
    test.setTimeout(120_000);
    await checkUnpriced(page, request, projectDir, "zh-CN", "只显示 token");
  });
});

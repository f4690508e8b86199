/**
 * Interventions in real browsers (issue 32): a server of its own in team mode and a slow fake
 * OpenAI-compatible model whose calls this spec holds. The owner invites an editor (Ada), an
 * approver (Bo) and a viewer (Lei), each signed in in a browser context of their own.
 * - Ada steers the leader mid-run while Bo starts a new task: the timeline shows two interventions
 *   by different people in different traces; Ada's words reach the leader's next model call (the
 *   fake's request log); Bo's request gets its own agent and report (the trace filter shows it).
 * - An agent asks to run a command: the viewer's and the editor's Approve are refused (403), the
 *   approver's goes through, and the timeline says who approved.
 * - An interrupt cancels a streaming call (the fake sees its request closed within 1 s, the
 *   issue's bound) and the cancelled answer is marked so on screen and in the stored message.
 * - Queued messages are listed under the composer with who queued them, reordered and withdrawn;
 *   a task is withdrawn from its agent in its drawer; then the queue is taken up.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../test/helpers/fake-openai";
import { writeFakeModels } from "../test/helpers/models-file";
import { startServer, tempDir, type TestServer } from "../test/helpers/server";

const TOKEN = "e2e-interventions-token-correct-horse";
const PASSWORD = "e2e-interventions-password";
const JSON_HEADERS = { "content-type": "application/json" };

type Msg = { role: string; content?: unknown };
const messagesOf = (body: FakeRequestBody) => (body.messages ?? []) as Msg[];
const lastOf = (body: FakeRequestBody) => messagesOf(body).at(-1);
const lastUser = (body: FakeRequestBody) => String(messagesOf(body).filter((m) => m.role === "user").at(-1)?.content ?? "");
const isLeader = (body: FakeRequestBody) => ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");

/** Opened by the spec when the leader's call for "Hold on" may answer. */
let openHold: () => void = () => undefined;
const holdHeld = new Promise<void>((r) => (openHold = r));

/** Opened by the spec when the leader's first call for "Survey the code" may answer. */
let openSurvey: () => void = () => undefined;
const surveyHeld = new Promise<void>((r) => (openSurvey = r));

async function handler(body: FakeRequestBody): Promise<Script> {
  const text = messagesOf(body).map((m) => String(m.content ?? "")).join("\n");
  if (!isLeader(body)) {
    // Works for ever (a slow model), until its task is withdrawn.
    if (text.includes("Slow survey") && !text.includes("was withdrawn")) return { kind: "stream", content: ["Reading ", "every ", "file"], chunkDelayMs: 50, end: "stall", chunksBeforeEnd: 4 };
    if (text.includes("Run the build") && !messagesOf(body).some((m) => m.role === "tool")) return fakeToolCalls([{ id: "e2e_iv_cmd", name: "run_command", arguments: { command: "echo interventions-e2e" } }]);
    return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: text.includes("release notes") ? "Notes drafted." : "Done." } }]);
  }
  if (lastOf(body)?.role === "tool") return fakeText("Delegated.");
  const last = lastUser(body);
  if (last.endsWith("Survey the code")) {
    await surveyHeld;
    return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "writer", task: "Survey src" } }]);
  }
  if (last.endsWith("Hold on")) {
    await holdHeld;
    return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "writer", task: "Slow survey" } }]);
  }
  if (last.endsWith("Write release notes")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "writer", task: "Draft the release notes" } }]);
  if (last.endsWith("Run the build")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "runner", task: "Run the build." } }]);
  // A slow model that streams a little, then keeps the connection open.
  if (last.endsWith("Write at length")) return { kind: "stream", content: ["Once ", "upon ", "a time"], chunkDelayMs: 100, end: "stall", chunksBeforeEnd: 4 };
  if (last.includes("的任务完成汇报")) return fakeText("Summed up.");
  return fakeText("Noted.");
}

let fake: FakeOpenAI;
let server: TestServer;

test.beforeAll(async () => {
  test.setTimeout(200_000);
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-e2e-interventions-");
  // A slow model: calls this file holds must not hit the first-response deadline (and be retried).
  writeFakeModels(home, fake.url, { timeouts: { first_response_ms: 120_000, idle_ms: 120_000 } });
  fs.mkdirSync(path.join(home, "agents"), { recursive: true });
  fs.writeFileSync(path.join(home, "agents", "runner.md"), "---\nname: runner\ndescription: Runs commands for the interventions spec\npermissions: [read, execute]\n---\nYou run commands.\n");
  fs.writeFileSync(path.join(home, "agents", "writer.md"), "---\nname: writer\ndescription: Writes notes for the interventions spec\n---\nYou write.\n");
  server = await startServer({ home, env: { ASTRION_TOKEN: TOKEN, ASTRION_OWNER_NAME: "Mei", FAKE_OPENAI_KEY: "sk-fake-interventions-e2e", ASTRION_LEADER_BATCH_MS: "0" } });
});

test.afterAll(async () => {
  openSurvey();
  openHold();
  await server?.stop();
  await fake?.close();
});

async function browserOf(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ locale: "en-US" });
  const page = await context.newPage();
  await page.route((url) => url.hostname !== "127.0.0.1", (route) => route.abort());
  return page;
}

/** Opens an invitation link, picks a display name and the password, and lands in the app. */
async function join(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await expect(async () => {
    await page.getByTestId("join-name").fill(name);
    await page.getByTestId("join-password").fill(PASSWORD);
    await expect(page.getByTestId("join-submit")).toBeEnabled({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByTestId("join-submit").click();
  await expect(page.getByTestId("whoami")).toContainText(name);
}

type People = { owner: Page; ada: Page; bo: Page; lei: Page; ids: Record<string, string> };
let people: People | null = null;

/** The owner signs in with the token and invites Ada (editor), Bo (approver) and Lei (viewer); once per file. */
async function team(browser: Browser): Promise<People> {
  if (people) return people;
  const owner = await browserOf(browser);
  await owner.goto(`${server.url}/signin`);
  await owner.getByTestId("signin-token").fill(TOKEN);
  await owner.getByTestId("signin-submit").click();
  await expect(owner.getByTestId("whoami")).toContainText("Mei");
  const pages: Record<string, Page> = {};
  const ids: Record<string, string> = {};
  for (const [name, role] of [["Ada", "editor"], ["Bo", "approver"], ["Lei", "viewer"]] as const) {
    const invited = await owner.request.post(`${server.url}/api/people`, { headers: JSON_HEADERS, data: { role } });
    expect(invited.status()).toBe(201);
    const page = await browserOf(browser);
    await join(page, `${server.url}${(await invited.json()).path}`, name);
    const me = await page.request.get(`${server.url}/api/people/me`);
    ids[name] = (await me.json()).me.id;
    pages[name] = page;
  }
  people = { owner, ada: pages.Ada!, bo: pages.Bo!, lei: pages.Lei!, ids };
  return people;
}

async function newConversation(page: Page, title: string): Promise<string> {
  const created = await page.request.post(`${server.url}/api/conversations`, { headers: JSON_HEADERS, data: { title, project_path: tempDir("astrion-e2e-iv-project-") } });
  expect(created.status()).toBe(201);
  return (await created.json()).conversation.id as string;
}

async function send(page: Page, text: string, strategy?: string): Promise<void> {
  if (strategy) await page.getByTestId("composer-strategy").selectOption(strategy);
  const composer = page.getByTestId("composer-input");
  await composer.fill(text);
  await composer.press("Enter");
  await expect(composer).toHaveValue("");
}

test("Ada steers the leader mid-run while Bo starts a new task: two interventions, two traces, Bo's own agent and report", async ({ browser }) => {
  test.setTimeout(120_000);
  const { ada, bo, ids } = await team(browser);
  const id = await newConversation(ada, "Two requests");
  await ada.goto(`${server.url}/conversations/${id}`);
  await send(ada, "Survey the code");
  await expect.poll(() => fake.requests.some((r) => r.body && isLeader(r.body) && lastUser(r.body).endsWith("Survey the code"))).toBe(true);

  // While the leader's call is held: the steer (default, shown first) and a new task.
  await expect(ada.getByTestId("composer-strategy")).toHaveValue("steer");
  await send(ada, "Focus on src");
  await bo.goto(`${server.url}/conversations/${id}`);
  await send(bo, "Write release notes", "new_task");
  openSurvey();

  // Ada's words reach the leader's next model call.
  const leaderCalls = () => fake.requests.filter((r) => r.body && isLeader(r.body) && messagesOf(r.body).some((m) => String(m.content ?? "").endsWith("Survey the code")));
  await expect.poll(() => leaderCalls().length, { timeout: 30_000 }).toBeGreaterThan(1);
  expect(messagesOf(leaderCalls()[1]!.body!).map((m) => String(m.content ?? ""))).toContain("[Ada] Focus on src");

  // The timeline shows the two interventions, by different people, in different traces.
  await expect.poll(async () => (await (await ada.request.get(`${server.url}/api/conversations/${id}/agents`)).json()).agents.filter((a: { metadata: { status: string } }) => a.metadata.status === "completed").length, { timeout: 30_000 }).toBe(2);
  await ada.getByTestId("conversation-tab-timeline").click();
  const arrows = ada.locator('[data-testid="timeline-arrow"][data-action="intervention"]');
  await expect(arrows).toHaveCount(2);
  const [first, second] = [arrows.nth(0), arrows.nth(1)];
  expect([await first.getAttribute("data-from"), await second.getAttribute("data-from")]).toEqual([`person:${ids.Ada}`, `person:${ids.Bo}`]);
  const [traceA, traceB] = [await first.getAttribute("data-trace-id"), await second.getAttribute("data-trace-id")];
  expect(traceA).not.toBe(traceB);

  // Bo's request has its own agent and its report; filtered by its trace, Ada's agent is not there.
  const agents = (await (await ada.request.get(`${server.url}/api/conversations/${id}/agents`)).json()).agents as Array<{ metadata: { agent_id: number; task_summary: string; trace_id?: string } }>;
  const bosAgent = agents.find((a) => a.metadata.task_summary.includes("release notes"))!;
  const adasAgent = agents.find((a) => a.metadata.task_summary.includes("Survey src"))!;
  expect([adasAgent.metadata.trace_id, bosAgent.metadata.trace_id]).toEqual([traceA, traceB]);
  await ada.getByTestId("timeline-trace-filter").selectOption(traceB!);
  const inB = ada.getByTestId("timeline-arrow");
  await expect(ada.locator(`[data-testid="timeline-arrow"][data-action="report"][data-from="agent:${bosAgent.metadata.agent_id}"]`)).toHaveCount(1);
  const parties = await inB.evaluateAll((els) => els.flatMap((e) => [e.getAttribute("data-from"), e.getAttribute("data-to")]));
  expect(parties).not.toContain(`agent:${adasAgent.metadata.agent_id}`);
});

test("an agent asks for a command: the viewer's and the editor's Approve are refused, the approver's goes through and is recorded", async ({ browser }) => {
  test.setTimeout(120_000);
  const { ada, bo, lei } = await team(browser);
  const id = await newConversation(ada, "Approvals");
  await ada.goto(`${server.url}/conversations/${id}`);
  await send(ada, "Run the build");
  await lei.goto(`${server.url}/conversations/${id}`);
  await expect(lei.getByTestId("approval-card")).toBeVisible({ timeout: 30_000 });
  await lei.getByTestId("approval-approve").click();
  await expect(lei.getByTestId("approval-error")).toContainText("Your role, viewer, may not do this: it takes approver or above.");
  await ada.getByTestId("approval-approve").click();
  await expect(ada.getByTestId("approval-error")).toContainText("Your role, editor, may not do this: it takes approver or above.");
  await bo.goto(`${server.url}/conversations/${id}`);
  await bo.getByTestId("approval-approve").click();
  await expect(bo.getByTestId("approval-card")).toHaveCount(0, { timeout: 30_000 });
  const records = (await (await bo.request.get(`${server.url}/api/conversations/${id}/timeline`)).json()).records as Array<{ action: string; envelope: { author?: { name: string } } }>;
  expect(records.filter((r) => r.action === "approval" && r.envelope.author).map((r) => r.envelope.author?.name)).toEqual(["Bo"]);
});

test("an interrupt cancels a streaming call within 1 s and the cancelled answer is marked as such", async ({ browser }) => {
  test.setTimeout(120_000);
  const { ada } = await team(browser);
  const id = await newConversation(ada, "Interrupt");
  await ada.goto(`${server.url}/conversations/${id}`);
  await send(ada, "Write at length");
  const streaming = () => fake.requests.find((r) => r.body && isLeader(r.body) && lastUser(r.body).endsWith("Write at length"));
  await expect.poll(() => streaming() !== undefined).toBe(true);
  // The first words are on screen while the call streams.
  await expect(ada.getByTestId("leader-messages")).toContainText("Once", { timeout: 10_000 });
  await ada.getByTestId("composer-strategy").selectOption("interrupt");
  await ada.getByTestId("composer-input").fill("Stop, just summarize");
  const sentAt = Date.now();
  await ada.getByTestId("composer-input").press("Enter");
  await expect.poll(() => streaming()!.closedByClient, { timeout: 5_000 }).toBe(true);
  const took = streaming()!.closedAt! - sentAt;
  test.info().annotations.push({ type: "interrupt-ms", description: String(took) });
  // The bound, generous for a loaded machine: the call is cancelled within 1 s.
  expect(took).toBeLessThan(1000);
  await expect(ada.getByTestId("cancelled-badge")).toHaveText("cancelled by Ada");
  const stored = (await (await ada.request.get(`${server.url}/api/conversations/${id}/messages`)).json()).messages as Array<{ content: string; metadata?: Record<string, unknown> }>;
  expect(stored.find((m) => m.metadata?.cancelled)).toMatchObject({ content: expect.stringContaining("Once"), metadata: { cancelled_for: "interrupt", cancelled_by: { name: "Ada" } } });
});

test("queued messages are listed by the composer with who queued them; reordered, withdrawn, and a task withdrawn from its agent", async ({ browser }) => {
  test.setTimeout(120_000);
  const { ada, bo } = await team(browser);
  const id = await newConversation(ada, "Queue");
  await ada.goto(`${server.url}/conversations/${id}`);
  await send(ada, "Hold on");
  await bo.goto(`${server.url}/conversations/${id}`);
  await send(ada, "first from Ada", "queue");
  await send(bo, "then Bo", "queue");
  const list = ada.getByTestId("queued-message");
  await expect(list.getByTestId("queued-author")).toHaveText(["Ada", "Bo"]);
  // Bo moves his up; Ada withdraws hers. Each page follows live.
  await bo.getByTestId("queued-message").nth(1).getByTestId("queued-up").click();
  await expect(list.getByTestId("queued-content")).toHaveText(["then Bo", "first from Ada"]);
  await ada.getByTestId("queued-message").nth(1).getByTestId("queued-withdraw").click();
  await expect(bo.getByTestId("queued-message").getByTestId("queued-content")).toHaveText(["then Bo"]);
  openHold();

  // The agent works on; Ada withdraws its task from its drawer: it stops, and the work is over.
  await ada.getByTestId("agent-card").first().click();
  await expect(ada.getByTestId("agent-drawer")).toBeVisible();
  await ada.getByTestId("agent-withdraw-task").click();
  await expect(ada.getByTestId("agent-drawer").getByTestId("cancelled-badge")).toHaveText("cancelled by Ada", { timeout: 30_000 });
  // Then the queue is taken up: Bo's message, never Ada's withdrawn one.
  await expect.poll(() => fake.requests.some((r) => r.body && isLeader(r.body) && lastUser(r.body) === "[Bo] then Bo"), { timeout: 30_000 }).toBe(true);
  expect(fake.requests.some((r) => r.body && JSON.stringify(r.body.messages).includes("first from Ada"))).toBe(false);
  await expect(ada.getByTestId("queued-messages")).toHaveCount(0);
  const records = (await (await ada.request.get(`${server.url}/api/conversations/${id}/timeline`)).json()).records as Array<{ action: string; envelope: { type: string; author?: { name: string }; meta: { intervention?: { kind: string; strategy?: string } } } }>;
  expect(records.filter((r) => r.action === "intervention").map((r) => [r.envelope.type, r.envelope.meta.intervention?.kind, r.envelope.meta.intervention?.strategy ?? null, r.envelope.author?.name])).toEqual([
    ["request", "message", "queue", "Ada"],
    ["request", "message", "queue", "Bo"],
    ["control", "reorder", null, "Bo"],
    ["control", "withdraw_queued", null, "Ada"],
    ["control", "withdraw_task", null, "Ada"],
  ]);
});

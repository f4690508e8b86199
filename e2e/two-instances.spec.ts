/**
 * Two instances in real browsers (issue 31): two built servers of their own on one throwaway
 * PostgreSQL and one redis-server, a fake OpenAI-compatible model that each instance calls with a
 * key of its own (so its request log tells which instance made a call). A conversation started on
 * A, and watched there, is watched live from a browser on B: B's page shows A's run and A's
 * answer appears on it while A runs; a message typed on B's page reaches the run on A (A's next
 * leader call has it, with A's key) and both pages show the answer.
 */
import { expect, test, type Browser, type Page } from "@playwright/test";
import { fakeText, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody } from "../test/helpers/fake-openai";
import { writeFakeModels } from "../test/helpers/models-file";
import { startServer, tempDir, type TestServer } from "../test/helpers/server";
import { startPgCluster, type PgCluster } from "../test/support/pg-server";
import { startRedis, type TestRedis } from "../test/support/redis-server";

type Msg = { role: string; content?: unknown };

let pg: PgCluster;
let redis: TestRedis;
let fake: FakeOpenAI;
let a: TestServer;
let b: TestServer;
/** The first leader call waits here, so A is running the conversation when B's page opens. */
let openFirst!: () => void;
const firstOpened = new Promise<void>((resolve) => (openFirst = resolve));

function lastPersonText(body: FakeRequestBody | undefined): string {
  const last = [...((body?.messages ?? []) as Msg[])].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : "";
}

function isLeaderCall(body: FakeRequestBody | undefined): boolean {
  return ((body?.tools ?? []) as Array<{ function?: { name?: string } }>).some((t) => t.function?.name === "create_sub_agent");
}

test.beforeAll(async () => {
  test.setTimeout(400_000);
  [pg, redis] = await Promise.all([startPgCluster(), startRedis()]);
  fake = await startFakeOpenAI({
    script: async (body) => {
      const text = lastPersonText(body);
      if (text === "Start the work") await firstOpened;
      return fakeText(isLeaderCall(body) ? `Noted: ${text}` : "{}");
    },
  });
  const databaseUrl = await pg.createDatabase();
  const start = (key: string) => {
    const home = tempDir(`astrion-e2e-two-${key}-`);
    writeFakeModels(home, fake.url);
    return startServer({ home, env: { ASTRION_DATABASE_URL: databaseUrl, ASTRION_REDIS_URL: redis.url, FAKE_OPENAI_KEY: `sk-e2e-instance-${key}`, ASTRION_LEADER_BATCH_MS: "0" } });
  };
  a = await start("a");
  b = await start("b");
});

test.afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await fake?.close();
  await redis?.dispose();
  await pg?.stop();
});

/** A page in a browser context of its own, kept to this machine. */
async function pageOf(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext({ locale: "en-US" })).newPage();
  await page.route((url) => url.hostname !== "127.0.0.1", (route) => route.abort());
  return page;
}

/** The leader's messages on a conversation page. */
const leaderMessages = (page: Page) => page.getByTestId("leader-messages").getByTestId("chat-message");

test("a conversation run on A is watched live on B, and a message typed on B reaches A's run", async ({ browser }) => {
  test.setTimeout(180_000);
  const created = await a.api("POST", "/api/conversations", { title: "Two instances", project_path: tempDir("astrion-e2e-two-project-"), model_key: "fake", goal: "Start the work" });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const id: string = created.json.conversation.id;
  await expect.poll(() => fake.requests.some((r) => isLeaderCall(r.body) && lastPersonText(r.body) === "Start the work")).toBe(true);

  // Someone watches on A (A keeps the run while it is watched there), and someone on B.
  const onA = await pageOf(browser);
  await onA.goto(`${a.url}/conversations/${id}`);
  const onB = await pageOf(browser);
  await onB.goto(`${b.url}/conversations/${id}`);
  await expect(onB.getByTestId("conversation-title")).toHaveText("Two instances");
  await expect(leaderMessages(onB).filter({ hasText: "Start the work" })).toHaveCount(1);
  await expect(leaderMessages(onB).filter({ hasText: "Noted: Start the work" })).toHaveCount(0);

  // A answers while B's page is open: the answer appears there live.
  openFirst();
  await expect(leaderMessages(onB).filter({ hasText: "Noted: Start the work" })).toHaveCount(1);

  // Typed on B's page: it reaches the run on A, whose next leader call has it, with A's key.
  const input = onB.getByTestId("composer-input");
  await input.fill("A word from B");
  await input.press("Enter");
  await expect(input).toHaveValue("");
  await expect(leaderMessages(onB).filter({ hasText: "Noted: A word from B" })).toHaveCount(1);
  await expect(leaderMessages(onA).filter({ hasText: "Noted: A word from B" })).toHaveCount(1);
  const calls = fake.requests.filter((r) => isLeaderCall(r.body) && lastPersonText(r.body) === "A word from B");
  expect(calls.map((r) => r.authorization)).toEqual(["Bearer sk-e2e-instance-a"]);
  await expect(onB.getByTestId("composer-input-error")).toHaveCount(0);
});

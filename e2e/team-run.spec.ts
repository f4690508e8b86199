/**
 * A whole team run on the built-in offline model, driven from the browser: a goal goes in, the
 * team appears and works live, a sub-agent's question is answered in its drawer, the reports and
 * the leader's summary come back. The offline model sleeps ASTRION_OFFLINE_DELAY_MS between
 * steps (set by playwright.config.ts), so the run lasts long enough to reload in the middle.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test as base, uniqueSuffix } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";

/** A small landing-page project the sub-agents can list, read and search. */
function makeLandingProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-landing-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(
    path.join(dir, "README.md"),
    "# Acme landing page\n\nThe marketing landing page of Acme: a hero section, three feature cards and a sign-up form.\n",
  );
  fs.writeFileSync(
    path.join(dir, "package.json"),
    `${JSON.stringify({ name: "acme-landing", private: true, scripts: { dev: "vite", build: "vite build", test: "vitest run" } }, null, 2)}\n`,
  );
  fs.writeFileSync(
    path.join(dir, "src", "index.html"),
    [
      "<!doctype html>",
      '<html lang="en">',
      '<head><meta charset="utf-8"><title>Acme</title><link rel="stylesheet" href="styles.css"></head>',
      "<body>",
      '  <header class="hero"><h1>Build faster with Acme</h1><a class="cta" href="#signup">Get started</a></header>',
      '  <section class="features"><div class="card">Fast</div><div class="card">Secure</div><div class="card">Simple</div></section>',
      '  <form id="signup"><input type="email" placeholder="you@example.com"><button>Sign up</button></form>',
      "</body>",
      "</html>",
      "",
    ].join("\n"),
  );
  fs.writeFileSync(
    path.join(dir, "src", "styles.css"),
    ".hero { padding: 4rem 1rem; background: #222; color: #eee; }\n.cta { color: #999; }\n.features { display: flex; gap: 1rem; }\n",
  );
  return dir;
}

const test = base.extend<{ landingProject: string; conversation: ConversationPage }>({
  // Playwright requires an object pattern as the first argument, even an empty one.
  landingProject: async ({}, provide) => {
    const dir = makeLandingProject();
    await provide(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
  conversation: async ({ page }, provide) => provide(new ConversationPage(page)),
});

test("a goal runs live on the offline team: question answered in the drawer, reports and summary after a reload", async ({
  page,
  conversationIndex,
  conversation,
  landingProject,
}) => {
  test.setTimeout(180_000);
  const title = `E2E team run ${uniqueSuffix()}`;
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title, projectPath: landingProject });
  await conversationIndex.submitNewForm();
  await expect(page).toHaveURL(/\/conversations\/conv_\d{8}_\d{6}_\d{3,}$/);
  await expect(page.getByTestId("conversation-title")).toHaveText(title);
  await expect(page.getByTestId("model-label")).toContainText("offline");
  await expect(conversation.phase).toHaveAttribute("data-phase", "IDLE");
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");

  // The goal appears as the person's bubble and the team starts working.
  await conversation.recordTeam();
  await conversation.send("Improve the landing page");
  await expect(conversation.personMessages).toHaveText(["Improve the landing page"]);
  await expect(page.getByTestId("stop-button")).toBeVisible();
  await expect(conversation.phase).not.toHaveAttribute("data-phase", "IDLE");

  // Sub-agents appear and progress: running, and their last activity changes as they work.
  await expect(conversation.agents.first()).toBeVisible({ timeout: 30_000 });
  await expect
    .poll(async () => (await conversation.recordedTeam()).statuses.some((s) => s.endsWith(":running")), {
      timeout: 30_000,
      message: "a sub-agent should be shown running",
    })
    .toBe(true);
  // Renders batch events that arrive together, so count the card's activity and call count as one.
  await expect
    .poll(async () => (await conversation.recordedTeam()).activities.some((a) => !a.endsWith(":")), {
      timeout: 30_000,
      message: "an agent card should show its last activity",
    })
    .toBe(true);
  await expect
    .poll(async () => (await conversation.recordedTeam()).progress.length, {
      timeout: 30_000,
      message: "the agent cards should change (last activity, model calls) as the agents work",
    })
    .toBeGreaterThanOrEqual(3);
  await expect(page.getByTestId("team-count")).toContainText(/\d+ \/ \d+ agents/);

  // An ambiguous goal: one agent asks, and the offline leader relays the question to the person.
  const waiting = conversation.waitingAgents.first();
  await expect(waiting).toBeVisible({ timeout: 60_000 });
  const waitingId = (await waiting.getAttribute("data-agent-id")) ?? "";
  expect(waitingId).not.toBe("");
  await expect(conversation.agent(waitingId)).toHaveAttribute("data-status", "waiting");
  await expect(page.getByTestId("pending-question-strip")).toBeVisible();
  const agentsBefore = await conversation.agentStates();
  const messagesBefore = await conversation.messages.count();

  // Reload mid-run: the snapshot restores the same team, messages and pending question.
  await page.reload();
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
  await expect
    .poll(async () => (await conversation.agentStates()).map((a) => a.id))
    .toEqual(expect.arrayContaining(agentsBefore.map((a) => a.id)));
  await expect.poll(() => conversation.messages.count()).toBeGreaterThanOrEqual(messagesBefore);
  await expect(conversation.personMessages).toHaveText(["Improve the landing page"]);
  await expect(conversation.agent(waitingId).getByTestId("agent-waiting-marker")).toBeVisible();
  await expect(conversation.phase).not.toHaveAttribute("data-phase", "IDLE");

  // Answer the question in that agent's drawer; the drawer shows its whole conversation live.
  await conversation.agent(waitingId).click();
  const drawer = conversation.drawer;
  await expect(drawer).toBeVisible();
  await expect(drawer).toHaveAttribute("data-agent-id", waitingId);
  await expect(drawer.getByTestId("task-card").first()).toBeVisible();
  await expect(drawer.getByTestId("tool-call-card").first()).toBeVisible();
  const answer = "Focus on the hero section and the call-to-action contrast; keep the sign-up form as it is.";
  await drawer.getByTestId("question-answer-input").fill(answer);
  await drawer.getByTestId("question-answer-submit").click();
  await expect(drawer.getByTestId("pending-question")).toHaveCount(0, { timeout: 30_000 });
  await expect(conversation.agent(waitingId).getByTestId("agent-waiting-marker")).toHaveCount(0);
  // The agent carries on after the answer (live, after the reload) and reports.
  await expect(drawer.getByTestId("tool-call-card").filter({ hasText: "report_to_leader" })).toBeVisible({ timeout: 60_000 });
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();

  // Every agent reports; each report is a card in the leader chat, never the raw seed header.
  await expect(conversation.reportFrom(waitingId)).toBeVisible({ timeout: 60_000 });
  const agentCount = (await conversation.agentStates()).length;
  await expect.poll(() => conversation.reportCards.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(agentCount);
  await expect(page.getByTestId("leader-messages")).not.toContainText("的任务完成汇报");

  // The leader's summary comes after all reports, and the conversation returns to IDLE.
  await expect(conversation.phase).toHaveAttribute("data-phase", "IDLE", { timeout: 60_000 });
  await expect
    .poll(
      async () => {
        const kinds = await conversation.messageKinds();
        const lastReport = kinds.map((k) => k.kind).lastIndexOf("report");
        return kinds.slice(lastReport + 1).some((k) => k.kind === "assistant" && k.text.length > 40);
      },
      { timeout: 30_000, message: "a summary from the Team Leader should follow the last report" },
    )
    .toBe(true);
  // The summary names files that exist in the project (what the agents read), and no failure.
  const kinds = await conversation.messageKinds();
  const summary = kinds.slice(kinds.map((k) => k.kind).lastIndexOf("report") + 1).find((k) => k.kind === "assistant")!.text;
  const named = ["README.md", "package.json", "src/index.html", "src/styles.css"].filter((f) => summary.includes(f));
  expect(named.length, summary).toBeGreaterThan(0);
  for (const f of named) expect(fs.existsSync(path.join(landingProject, f))).toBe(true);
  expect(summary).not.toMatch(/\[failed\]|reached the limit|omitted here to fit/i);
  await expect(page.getByTestId("stop-button")).toBeHidden();
  for (const a of await conversation.agentStates()) expect(["completed", "idle"]).toContain(a.status);
  await expect(page.getByTestId("token-stats")).toBeVisible();
});

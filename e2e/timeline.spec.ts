/**
 * The timeline view (issue 4, SPEC §5) on a finished offline run: one lane per participant,
 * the delegation and report arrows linked by turn ids, the details of a row, live updates while
 * a second goal runs, and the trace filter keeping only the chosen trace's arrows. Also saves a
 * light and a dark screenshot of the view (test output folder) for a person to look at.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test as base, uniqueSuffix } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";
import type { Locator, Page } from "@playwright/test";

const FIRST_GOAL = "Review the authentication code in src for security issues";
const SECOND_GOAL = "Document the authentication module in src with usage examples for new developers";

/** A tiny project with an auth module, so a security review has something concrete to read. */
function makeAuthProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-auth-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.writeFileSync(path.join(dir, "README.md"), "# Acme API\n\nA small HTTP API with password login.\n");
  fs.writeFileSync(
    path.join(dir, "src", "auth.js"),
    [
      "// Password login for the Acme API.",
      'const crypto = require("crypto");',
      "",
      "function hashPassword(password) {",
      '  return crypto.createHash("md5").update(password).digest("hex");',
      "}",
      "",
      "function login(users, name, password) {",
      "  const user = users.find((u) => u.name == name);",
      "  if (!user) return null;",
      "  if (user.hash == hashPassword(password)) return { token: Math.random().toString(36) };",
      "  return null;",
      "}",
      "",
      "module.exports = { hashPassword, login };",
      "",
    ].join("\n"),
  );
  return dir;
}

/** The timeline tab of the conversation page. */
class TimelinePanel {
  constructor(readonly page: Page) {}

  async open() {
    await this.page.getByTestId("conversation-tab-timeline").click();
    await expect(this.view).toBeVisible();
  }

  get view(): Locator {
    return this.page.getByTestId("timeline-view");
  }

  get lanes(): Locator {
    return this.view.getByTestId("timeline-lane");
  }

  get arrows(): Locator {
    return this.view.getByTestId("timeline-arrow");
  }

  arrowsWith(attrs: Record<string, string>): Locator {
    const selector = Object.entries(attrs)
      .map(([k, v]) => `[data-${k}="${v}"]`)
      .join("");
    return this.view.locator(`[data-testid="timeline-arrow"]${selector}`);
  }

  get filter(): Locator {
    return this.view.getByTestId("timeline-trace-filter");
  }

  /** Every arrow's data attributes, in row order. */
  async arrowData(): Promise<Array<Record<string, string>>> {
    return this.arrows.evaluateAll((rows) =>
      rows.map((row) => {
        const data: Record<string, string> = {};
        for (const attr of row.getAttributeNames()) if (attr.startsWith("data-")) data[attr.slice(5)] = row.getAttribute(attr) ?? "";
        return data;
      }),
    );
  }
}

const test = base.extend<{ authProject: string; conversation: ConversationPage; timeline: TimelinePanel }>({
  // Playwright requires an object pattern as the first argument, even an empty one.
  authProject: async ({}, provide) => {
    const dir = makeAuthProject();
    await provide(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  },
  conversation: async ({ page }, provide) => provide(new ConversationPage(page)),
  timeline: async ({ page }, provide) => provide(new TimelinePanel(page)),
});

/**
 * Waits until the run of `traceId` is over: the leader has answered the person after the last
 * report, and the conversation is idle again.
 */
async function waitForRunEnd(conversation: ConversationPage, timeline: TimelinePanel, traceId: string) {
  await expect
    .poll(
      async () => {
        const actions = (await timeline.arrowData()).filter((a) => a["trace-id"] === traceId).map((a) => a.action);
        const phase = await conversation.phase.getAttribute("data-phase");
        // The leader's answer comes after the last report; long-term memory may record what it
        // distilled from the answer (memory_write) after it, in the same trace.
        return phase === "IDLE" && actions.includes("report") && actions.lastIndexOf("leader_reply") > actions.lastIndexOf("report");
      },
      { timeout: 90_000, message: `the run of ${traceId} should end with the leader's answer` },
    )
    .toBe(true);
}

test("the timeline shows a finished offline run as lanes and linked arrows, updates live and filters by trace", async ({
  page,
  conversationIndex,
  conversation,
  timeline,
  authProject,
}, testInfo) => {
  test.setTimeout(240_000);
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title: `E2E timeline ${uniqueSuffix()}`, projectPath: authProject });
  await conversationIndex.submitNewForm();
  await expect(page).toHaveURL(/\/conversations\/conv_\d{8}_\d{6}_\d{3,}$/);
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");

  // Before anything happens: the three fixed lanes and an empty-state hint.
  await timeline.open();
  await expect(timeline.view.getByTestId("timeline-empty")).toBeVisible();
  await expect(timeline.lanes).toHaveCount(3);

  // The chat is one click away and keeps working; the goal goes in there.
  await page.getByTestId("conversation-tab-chat").click();
  await conversation.send(FIRST_GOAL);
  await timeline.open();

  // The run appears live: the person's request first, then the team's envelopes.
  const firstUser = timeline.arrowsWith({ action: "user_message" });
  await expect(firstUser).toHaveCount(1);
  await expect(firstUser).toHaveAttribute("data-type", "request");
  await expect(firstUser).toHaveAttribute("data-from", "user");
  await expect(firstUser).toHaveAttribute("data-to", "leader");
  const firstTrace = (await firstUser.getAttribute("data-trace-id")) ?? "";
  expect(firstTrace).toMatch(/^trace_/);
  await waitForRunEnd(conversation, timeline, firstTrace);

  // One lane per participant: the person, the leader, every sub-agent by display name, the system.
  const agentIds = await conversation.agents.evaluateAll((cards) => cards.map((c) => c.getAttribute("data-agent-id") ?? ""));
  expect(agentIds.length).toBeGreaterThan(0);
  const parties = await timeline.lanes.evaluateAll((lanes) => lanes.map((l) => l.getAttribute("data-party") ?? ""));
  expect(parties).toEqual(["user", "leader", ...agentIds.map((id) => `agent:${id}`), "system"]);
  await expect(timeline.view.locator('[data-testid="timeline-lane"][data-party="user"]')).toContainText("Person");
  await expect(timeline.view.locator('[data-testid="timeline-lane"][data-party="leader"]')).toContainText("Team Leader");
  for (const id of agentIds) {
    const name = ((await conversation.agent(id).getByTestId("agent-name").textContent()) ?? "").trim();
    expect(name).not.toBe("");
    await expect(timeline.view.locator(`[data-testid="timeline-lane"][data-party="agent:${id}"]`)).toContainText(name);
  }

  // Each sub-agent: a create_sub_agent request leader → agent and a report reply agent → leader
  // whose parent turn is that request's turn.
  const arrows = await timeline.arrowData();
  for (const id of agentIds) {
    const create = arrows.find((a) => a.action === "create_sub_agent" && a.to === `agent:${id}`);
    expect(create, `create_sub_agent arrow to agent:${id}`).toMatchObject({ type: "request", from: "leader", status: "ok" });
    const report = arrows.find((a) => a.action === "report" && a.from === `agent:${id}`);
    expect(report, `report arrow from agent:${id}`).toMatchObject({ type: "reply", to: "leader" });
    expect(report!["parent-turn-id"]).toBe(create!["turn-id"]);
  }

  // Hovering a report highlights its request; clicking it opens its details.
  const someId = agentIds[0]!;
  const report = timeline.arrowsWith({ action: "report", from: `agent:${someId}` });
  const create = timeline.arrowsWith({ action: "create_sub_agent", to: `agent:${someId}` });
  await report.hover();
  await expect(create).toHaveAttribute("data-linked", "parent");
  await report.click();
  const details = timeline.view.getByTestId("timeline-details");
  await expect(details).toBeVisible();
  await expect(details.getByTestId("timeline-details-turn")).toHaveText((await report.getAttribute("data-turn-id")) ?? "");
  await expect(details.getByTestId("timeline-details-payload")).toContainText('"summary"');
  // …and from the details, its cause is one click away.
  await details.getByTestId("timeline-details-link").first().click();
  await expect(create).toHaveAttribute("data-selected", "true");
  await expect(details.getByTestId("timeline-details-turn")).toHaveText((await create.getAttribute("data-turn-id")) ?? "");

  await details.getByTestId("timeline-details-close").click();
  await expect(details).toBeHidden();

  // A second goal: its envelopes stream into the open timeline under a new trace.
  const firstCount = await timeline.arrows.count();
  await page.getByTestId("conversation-tab-chat").click();
  await conversation.send(SECOND_GOAL);
  await timeline.open();
  await expect(timeline.arrowsWith({ action: "user_message" })).toHaveCount(2, { timeout: 30_000 });
  const secondTrace = (await timeline.arrowsWith({ action: "user_message" }).nth(1).getAttribute("data-trace-id")) ?? "";
  expect(secondTrace).toMatch(/^trace_/);
  expect(secondTrace).not.toBe(firstTrace);
  await waitForRunEnd(conversation, timeline, secondTrace);
  await expect(timeline.view.getByTestId("timeline-trace-divider")).toHaveCount(2);
  const total = await timeline.arrows.count();
  expect(total).toBeGreaterThan(firstCount);

  // Pictures for a person to look at, light and dark, with a report's details open.
  await page.setViewportSize({ width: 1440, height: 1100 });
  await timeline.arrowsWith({ action: "report", "trace-id": secondTrace }).first().click();
  await expect(details).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("timeline-light.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: testInfo.outputPath("timeline-dark.png") });
  await page.emulateMedia({ colorScheme: "light" });
  await details.getByTestId("timeline-details-close").click();

  // The filter lists both traces by their first message; choosing the first keeps only its arrows.
  await expect(timeline.filter.locator("option")).toHaveCount(3);
  await expect(timeline.filter.locator(`option[value="${firstTrace}"]`)).toContainText(FIRST_GOAL.slice(0, 40));
  await expect(timeline.filter.locator(`option[value="${secondTrace}"]`)).toContainText(SECOND_GOAL.slice(0, 40));
  await timeline.filter.selectOption(firstTrace);
  await expect(timeline.arrows).toHaveCount(firstCount);
  const traces = await timeline.arrows.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-trace-id")));
  expect(new Set(traces)).toEqual(new Set([firstTrace]));
  await expect(timeline.arrowsWith({ action: "user_message" })).toHaveCount(1);
  await expect(timeline.view.getByTestId("timeline-trace-divider")).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath("timeline-filtered.png") });

  // Back to all traces: everything returns.
  await timeline.filter.selectOption("");
  await expect(timeline.arrows).toHaveCount(total);

  // The chat filters by trace too: only the first request and what it caused.
  await page.getByTestId("conversation-tab-chat").click();
  const asked = page.getByTestId("leader-messages").locator('[data-testid="chat-message"][data-kind="person"]');
  await expect(asked).toHaveCount(2);
  await page.getByTestId("chat-trace-filter").selectOption(firstTrace);
  await expect(asked).toHaveCount(1);
  await expect(asked.first()).toContainText(FIRST_GOAL);
  await expect(page.getByTestId("leader-messages").getByTestId("report-card").first()).toBeVisible();
  await page.getByTestId("chat-trace-filter").selectOption("");
  await expect(asked).toHaveCount(2);
});

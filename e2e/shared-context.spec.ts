/**
 * Issue 4 in the browser: the shared context with a conflict waiting for a person, decided from
 * the conversation page, and the per-call context report on the leader's and a sub-agent's
 * messages. Light and dark screenshots are saved in the test output folder for a person to look at.
 *
 * Person-free writers are not available in the UI, so the conflicts are made through the API: a
 * person's write ranks like the leader, so two person overwrites based on the same stale version,
 * arriving within the conflict window (ASTRION_CONFLICT_WINDOW_MS, 2 s by default) of the value
 * they contest, have equal authority and neither is clearly prior — arbitration rule 3 makes each
 * wait for a person.
 */
import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { SharedContextFileSchema } from "@/lib/shared-context/schema";
import { expect, test as base, uniqueSuffix } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";

const JSON_HEADERS = { "content-type": "application/json" };

/** The shared-context panel of the conversation page. */
class SharedContextPanel {
  constructor(readonly page: Page) {}

  get root(): Locator {
    return this.page.getByTestId("shared-context");
  }

  get conflicts(): Locator {
    return this.root.getByTestId("conflict-card");
  }

  conflict(id: string): Locator {
    return this.root.locator(`[data-testid="conflict-card"][data-conflict-id="${id}"]`);
  }

  entry(key: string): Locator {
    return this.root.locator(`[data-testid="shared-context-entry"][data-key="${key}"]`);
  }
}

const test = base.extend<{ conversation: ConversationPage; sharedContext: SharedContextPanel }>({
  conversation: async ({ page }, provide) => provide(new ConversationPage(page)),
  sharedContext: async ({ page }, provide) => provide(new SharedContextPanel(page)),
});

async function createConversation(request: APIRequestContext, projectDir: string, title: string): Promise<string> {
  const res = await request.post("/api/conversations", {
    headers: JSON_HEADERS,
    data: { title, project_path: projectDir, model_key: "offline" },
  });
  expect(res.status(), await res.text()).toBe(201);
  const body = (await res.json()) as { conversation: { id: string } };
  return body.conversation.id;
}

interface DecisionAnswer {
  decision: { outcome: string; rule: string; version: number; conflict: { conflict_id: string } | null };
}

async function putShared(request: APIRequestContext, id: string, data: Record<string, unknown>): Promise<DecisionAnswer> {
  const res = await request.put(`/api/conversations/${id}/shared-context`, { headers: JSON_HEADERS, data });
  expect(res.ok(), await res.text()).toBe(true);
  return (await res.json()) as DecisionAnswer;
}

test("a conflict waiting for a person is shown side by side and decided in the UI", async ({
  page,
  request,
  conversation,
  sharedContext,
  astrionHome,
  projectDir,
}, testInfo) => {
  const id = await createConversation(request, projectDir, `E2E shared context ${uniqueSuffix()}`);

  // v1, then two overwrites that both read version 0: stale, equal authority, inside the window.
  const first = await putShared(request, id, { key: "plan", value: "v1: ship the landing page", mode: "overwrite", expected_version: 0 });
  expect(first.decision).toMatchObject({ outcome: "applied", rule: "fresh", version: 1 });
  const proposalA = "v2: ship the landing page and the pricing page";
  const proposalB = "v2: postpone the launch a week";
  const a = await putShared(request, id, { key: "plan", value: proposalA, mode: "overwrite", expected_version: 0 });
  const b = await putShared(request, id, { key: "plan", value: proposalB, mode: "overwrite", expected_version: 0 });
  for (const d of [a, b]) expect(d.decision).toMatchObject({ outcome: "pending", rule: "awaiting_person", version: 1 });
  const conflictA = a.decision.conflict?.conflict_id ?? "";
  const conflictB = b.decision.conflict?.conflict_id ?? "";
  expect(conflictA).toMatch(/^conflict_/);
  expect(conflictB).toMatch(/^conflict_/);

  await conversation.goto(id);
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");

  // The conflicts are prominent: counted in the panel's badge, each with both values side by side.
  await expect(sharedContext.root).toHaveAttribute("data-pending", "2");
  await expect(sharedContext.root.getByTestId("shared-context-pending-count")).toContainText("2");
  await expect(sharedContext.conflicts).toHaveCount(2);
  const cardA = sharedContext.conflict(conflictA);
  await expect(cardA).toHaveAttribute("data-key", "plan");
  await expect(cardA.getByTestId("conflict-current-value")).toHaveText("v1: ship the landing page");
  await expect(cardA.getByTestId("conflict-proposed-value")).toHaveText(proposalA);
  await expect(cardA.getByTestId("conflict-proposed")).toContainText("v0");
  await expect(sharedContext.conflict(conflictB).getByTestId("conflict-proposed-value")).toHaveText(proposalB);
  await expect(sharedContext.entry("plan")).toHaveAttribute("data-version", "1");
  await expect(sharedContext.entry("plan").getByTestId("shared-context-value")).toHaveText("v1: ship the landing page");

  await sharedContext.root.screenshot({ path: testInfo.outputPath("shared-context-light.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await sharedContext.root.screenshot({ path: testInfo.outputPath("shared-context-dark.png") });
  await page.screenshot({ path: testInfo.outputPath("shared-context-page-dark.png") });
  await page.emulateMedia({ colorScheme: "light" });

  // Take the first proposal: the value and its version change, and that conflict is gone.
  await cardA.getByTestId("conflict-take-proposed").click();
  await expect(cardA).toHaveCount(0);
  await expect(sharedContext.entry("plan").getByTestId("shared-context-value")).toHaveText(proposalA);
  await expect(sharedContext.entry("plan")).toHaveAttribute("data-version", "2");
  await expect(sharedContext.root).toHaveAttribute("data-pending", "1");

  // Keep the current value against the second: nothing changes but the conflict leaves.
  await sharedContext.conflict(conflictB).getByTestId("conflict-keep-current").click();
  await expect(sharedContext.conflicts).toHaveCount(0);
  await expect(sharedContext.root).toHaveAttribute("data-pending", "0");
  await expect(sharedContext.root.getByTestId("shared-context-pending-count")).toHaveCount(0);
  await expect(sharedContext.entry("plan")).toHaveAttribute("data-version", "2");
  await expect(sharedContext.entry("plan").getByTestId("shared-context-value")).toHaveText(proposalA);

  // Both decisions are in the recent resolutions, newest first.
  const history = sharedContext.root.getByTestId("shared-context-history");
  await history.locator("summary").click();
  const decisions = history.locator('[data-testid="shared-context-resolution"][data-rule="person_decision"]');
  await expect(decisions).toHaveCount(2);
  await expect(decisions.nth(0)).toHaveAttribute("data-outcome", "rejected");
  await expect(decisions.nth(1)).toHaveAttribute("data-outcome", "applied");

  // A write made elsewhere shows up live: its timeline event makes the panel refetch.
  await putShared(request, id, { key: "notes", value: "checked README.md", mode: "append" });
  await expect(sharedContext.entry("notes").getByTestId("shared-context-value")).toHaveText("checked README.md");
  await expect(sharedContext.entry("notes")).toHaveAttribute("data-version", "1");

  // On disk: the decided value with its version, nothing pending, and both decisions recorded.
  const dir = path.join(astrionHome, "conversations", id);
  const file = SharedContextFileSchema.parse(JSON.parse(fs.readFileSync(path.join(dir, "shared_context.json"), "utf8")));
  expect(file.entries.plan).toMatchObject({ value: proposalA, version: 2, author_role: "person", decided_by: "person" });
  expect(file.pending).toEqual([]);
  const personDecisions = (file.history ?? []).filter((r) => r.rule === "person_decision");
  expect(personDecisions.map((r) => [r.conflict_id, r.outcome])).toEqual([
    [conflictA, "applied"],
    [conflictB, "rejected"],
  ]);
  // No overwrite was silent: each one is a conflict_resolution record of the timeline.
  const records = fs
    .readFileSync(path.join(dir, "timeline.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { action: string; status: string; resource: string | null });
  const resolutions = records.filter((r) => r.action === "conflict_resolution" && r.resource === "shared_context:plan");
  expect(resolutions.map((r) => r.status)).toEqual(["ok", "pending", "pending", "ok", "refused"]);
});

test("each model call's context report shows its slices and budgets, in the chat and in an agent's drawer", async ({
  page,
  conversationIndex,
  conversation,
  projectDir,
}, testInfo) => {
  test.setTimeout(120_000);
  await conversationIndex.goto();
  await conversationIndex.openNewForm();
  await conversationIndex.fillNewForm({ title: `E2E context ${uniqueSuffix()}`, projectPath: projectDir });
  await conversationIndex.submitNewForm();
  await expect(page).toHaveURL(/\/conversations\/conv_\d{8}_\d{6}_\d{3,}$/);
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
  await conversation.send("Review the project files and summarise what is there");

  // The leader's first call: the report is folded to a line, and opened it shows the three slices.
  const report = page.getByTestId("leader-messages").getByTestId("context-report").first();
  await expect(report).toBeVisible({ timeout: 30_000 });
  const used = Number(await report.getAttribute("data-scene-used"));
  const budget = Number(await report.getAttribute("data-scene-budget"));
  expect(budget).toBeGreaterThan(0);
  expect(used).toBeGreaterThan(0);
  expect(used).toBeLessThanOrEqual(budget);
  await report.getByTestId("context-report-toggle").click();
  await expect(report.getByTestId("context-slice")).toHaveCount(3);
  await expect(report.locator('[data-testid="context-slice"][data-slice="global"]')).toBeVisible();
  await expect(report.locator('[data-testid="context-slice"][data-slice="scene"]')).toHaveAttribute("data-over", "false");
  await expect(report.getByTestId("context-tokenizer")).not.toBeEmpty();
  // The goal is a line of the global slice.
  await expect(report.locator('[data-testid="context-line"][data-included="true"]').first()).toBeVisible();
  await expect(report.getByTestId("context-scene-sent")).toContainText(/\d/);

  await report.screenshot({ path: testInfo.outputPath("context-report-light.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await report.screenshot({ path: testInfo.outputPath("context-report-dark.png") });
  await page.emulateMedia({ colorScheme: "light" });

  // A sub-agent's calls carry their own report, shown in its drawer.
  await expect(conversation.agents.first()).toBeVisible({ timeout: 60_000 });
  await conversation.agents.first().click();
  const drawerReport = conversation.drawer.getByTestId("context-report").first();
  await expect(drawerReport).toBeVisible({ timeout: 60_000 });
  expect(Number(await drawerReport.getAttribute("data-scene-used"))).toBeLessThanOrEqual(
    Number(await drawerReport.getAttribute("data-scene-budget")),
  );
  await drawerReport.getByTestId("context-report-toggle").click();
  await expect(drawerReport.getByTestId("context-slice")).toHaveCount(3);
  await conversation.drawer.screenshot({ path: testInfo.outputPath("context-report-drawer.png") });
  await page.keyboard.press("Escape");

  // Leave nothing running for the next spec.
  const stop = page.getByTestId("stop-button");
  if (await stop.isVisible()) await stop.click();
});

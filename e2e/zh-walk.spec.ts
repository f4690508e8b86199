/**
 * The whole UI in Chinese: a browser that asks for zh-CN walks every page and every drawer, form
 * and card a person opens in the first hour — after an offline team has worked on a project, with
 * a question, an approval and a report — and fails on any English word that is not a name, a
 * path or a code identifier (the rules are in e2e/english-words.ts). Server-made notices and the
 * offline team's own text are on these pages, so they are checked too.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test, uniqueSuffix } from "./fixtures";
import { type EnglishWord, englishWords, namesToWords, visibleTexts } from "./english-words";
import { ConversationPage } from "./pages/conversation-page";

test.use({ locale: "zh-CN" });

/** A small Node project: source, a test and a test script, so a Chinese goal can read, search and run its tests. */
function makeProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "astrion-e2e-zh-"));
  fs.mkdirSync(path.join(dir, "src"));
  fs.mkdirSync(path.join(dir, "test"));
  fs.writeFileSync(path.join(dir, "README.md"), "# 计数器\n\n一个很小的计数器库。\n");
  fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name: "counter", version: "1.0.0", main: "src/index.js", scripts: { test: "node test/counter.test.js" } }, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, "src", "index.js"), "export function createCounter(start = 0) {\n  let value = start;\n  return { increment: () => ++value, get: () => value };\n}\n");
  fs.writeFileSync(path.join(dir, "test", "counter.test.js"), 'import assert from "node:assert";\nimport { createCounter } from "../src/index.js";\nconst c = createCounter();\nc.increment();\nassert.equal(c.get(), 1);\nconsole.log("ok");\n');
  return dir;
}

/** The names the data holds (roles, models, every conversation's title, the project's files), which may be English. */
async function dataNames(page: Page, extra: string[]): Promise<Set<string>> {
  const conversations = (await (await page.request.get("/api/conversations?status=all&limit=100")).json()) as { items?: { title: string }[] };
  const roles = (await (await page.request.get("/api/roles")).json()) as { roles: { id: string; name?: string; display_name?: string }[] };
  const models = (await (await page.request.get("/api/models")).json()) as { models?: { key: string; label?: string; model?: string }[] };
  const names = [...extra, ...(conversations.items ?? []).map((c) => c.title)];
  for (const r of roles.roles) names.push(r.id, r.name ?? "", r.display_name ?? "");
  for (const m of models.models ?? []) names.push(m.key, m.label ?? "", m.model ?? "");
  return namesToWords(names);
}

function report(found: readonly EnglishWord[]): string[] {
  return [...new Set(found.map((f) => `${f.where}: "${f.word}" in "${f.text}"`))];
}

test("every page, drawer and card is in Chinese, the offline team's text and the server's notices included", async ({ page }) => {
  test.setTimeout(300_000);
  const project = makeProject();
  const found: EnglishWord[] = [];
  let allowed = new Set<string>();
  const check = async (where: string) => {
    await page.waitForLoadState("networkidle").catch(() => undefined);
    // titles other specs made on this shared server are names too
    allowed = new Set([...allowed, ...(await dataNames(page, []))]);
    found.push(...englishWords(await visibleTexts(page), where, allowed));
  };

  try {
    const title = `架构分析 ${uniqueSuffix()}`;
    allowed = await dataNames(page, [title, project, "README", "package", "index", "counter", "src", "test"]);

    // The index, its new-conversation form (with the goal), and the page a run leaves.
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("lang", "zh-CN");
    await check("/");
    await page.getByTestId("new-conversation-open").click();
    await expect(page.getByTestId("new-conversation-form")).toBeVisible();
    await check("/ (new conversation form)");
    await page.getByTestId("new-conversation-title").fill(title);
    await page.getByTestId("new-conversation-project-path").fill(project);
    await expect(page.getByTestId("new-conversation-model")).toBeEnabled();
    await page.getByTestId("new-conversation-submit").click();
    await expect(page).toHaveURL(/\/conversations\/conv_/);
    const conversation = new ConversationPage(page);
    await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
    await check("conversation (empty)");

    // A Chinese goal: the offline team works in Chinese.
    await conversation.send("帮我分析这个项目的架构并写一份总结");
    await expect(conversation.agents.first()).toBeVisible({ timeout: 60_000 });
    await check("conversation (team working)");
    await expect(conversation.phase).toHaveAttribute("data-phase", "IDLE", { timeout: 120_000 });
    await check("conversation (run finished)");

    // Every agent's drawer, then the timeline and an entry's details.
    for (const card of await conversation.agents.all()) {
      await card.click();
      await expect(conversation.drawer).toBeVisible();
      await check(`agent drawer ${await card.getAttribute("data-agent-id")}`);
      await page.keyboard.press("Escape");
      await expect(conversation.drawer).toBeHidden();
    }
    await page.getByTestId("conversation-tab-timeline").click();
    await expect(page.getByTestId("timeline-count")).toBeVisible();
    await check("timeline");
    const arrow = page.getByTestId("timeline-arrow").first();
    if (await arrow.isVisible()) {
      await arrow.click();
      await expect(page.getByTestId("timeline-details")).toBeVisible();
      await check("timeline details");
      await page.getByTestId("timeline-details-close").click();
    }
    await page.getByTestId("conversation-tab-chat").click();
    for (const id of ["conversation-details", "conversation-export"]) {
      const opener = page.getByTestId(id);
      if (await opener.isVisible()) {
        await opener.click();
        await check(`conversation (${id} open)`);
        await page.keyboard.press("Escape");
      }
    }

    // A goal that asks to run the tests: the approval card, then the report.
    await conversation.send("运行测试并报告结果");
    const approval = page.getByTestId("approval-card").first();
    await expect(approval).toBeVisible({ timeout: 90_000 });
    await check("conversation (approval pending)");
    await approval.getByTestId("approval-approve").click();
    await expect(conversation.phase).toHaveAttribute("data-phase", "IDLE", { timeout: 120_000 });
    await check("conversation (tests reported)");

    // Stopping a run leaves a server-made notice.
    await conversation.send("再检查一遍");
    await page.getByTestId("stop-button").click();
    await expect(page.locator('[data-testid="notice-banner"][data-code="stopped"]')).toBeVisible();
    await check("conversation (stopped)");

    // The other pages, and what opens on them.
    await page.goto("/");
    await check("/ (with a conversation)");
    await page.goto("/roles");
    await check("/roles");
    const roleLink = page.getByTestId("role-card").first();
    if (await roleLink.isVisible()) {
      await roleLink.click();
      await page.waitForURL(/\/roles\/[^/]+$/);
      await check("role editor");
    }
    await page.goto("/roles/new");
    await check("/roles/new");
    await page.goto("/settings");
    await check("/settings");
    // the forms and checks Settings opens: a new model, the connection doctor, a new MCP server
    await page.getByTestId("model-add").click();
    await check("/settings (new model form)");
    await page.keyboard.press("Escape");
    await page.goto("/settings");
    const doctor = page.getByTestId("doctor-run").first();
    if (await doctor.isVisible()) {
      await doctor.click();
      await expect(page.getByTestId("doctor-result").first()).toBeVisible({ timeout: 30_000 });
      await check("/settings (connection doctor)");
    }
    await page.getByTestId("mcp-add").click();
    await expect(page.getByTestId("mcp-form")).toBeVisible();
    await check("/settings (new MCP server form)");
    await page.goto("/memory");
    await check("/memory");
    const addMemory = page.getByTestId("memory-add-open");
    if (await addMemory.isVisible()) {
      await addMemory.click();
      await check("/memory (add form)");
    }
    await page.goto(`/search?q=${encodeURIComponent("计数器")}`);
    await check("/search");
    await page.goto("/signin");
    await check("/signin");
    await page.goto("/no-such-page");
    await check("404");
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
    // What was found so far, also when a step failed (to fix them all in one go).
    await test.info().attach("english-words.txt", { body: report(found).join("\n") || "(none)", contentType: "text/plain" });
  }
  expect(report(found), "English words in the Chinese UI").toEqual([]);
});

/**
 * The Memory page in the browser: entries seeded through the API (one citing a real conversation
 * made through the API), reached from the main navigation; searched and filtered; edited (the
 * text is redacted again), re-levelled with a grant, deleted after a confirmation; the masked
 * spans shown by kind only; "open source" lands on the conversation at the cited message.
 */
import type { APIRequestContext } from "@playwright/test";
import { expect, test, uniqueSuffix } from "./fixtures";

const JSON_HEADERS = { "content-type": "application/json" };

type Entry = { id: string; statement: string; level: string; grant: string[]; history: Array<{ reason: string }> };

async function addEntry(request: APIRequestContext, data: Record<string, unknown>): Promise<Entry> {
  const res = await request.post("/api/memory/entries", { headers: JSON_HEADERS, data });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { entry: Entry }).entry;
}

async function getEntry(request: APIRequestContext, id: string): Promise<{ status: number; entry?: Entry }> {
  const res = await request.get(`/api/memory/entries/${id}`);
  return { status: res.status(), entry: res.ok() ? ((await res.json()) as { entry: Entry }).entry : undefined };
}

test("the Memory page edits, re-levels, deletes, shows redaction kinds and opens an entry's source", async ({ page, request, projectDir }) => {
  const word = `quokka${uniqueSuffix()}`;
  // A real conversation and one of its messages, so the source link resolves.
  const created = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title: `Memory ${word}`, project_path: projectDir, model_key: "offline" } });
  expect(created.status(), await created.text()).toBe(201);
  const convId = ((await created.json()) as { conversation: { id: string } }).conversation.id;
  expect((await request.post(`/api/conversations/${convId}/messages`, { headers: JSON_HEADERS, data: { content: `Note that the ${word} order API is deprecated` } })).status()).toBe(202);
  let messageId = "";
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/conversations/${convId}/messages`);
        const messages = ((await res.json()) as { messages: Array<{ role: string; content: unknown; message_id: string }> }).messages;
        messageId = messages.find((m) => m.role === "user" && String(m.content).includes(word))?.message_id ?? "";
        return messageId;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");

  const cited = await addEntry(request, { kind: "fact", statement: `The ${word} order API is deprecated`, subject: `${word} order API`, project_path: projectDir, level: "project", source: { conversation_id: convId, message_ids: [messageId] } });
  const doomed = await addEntry(request, { kind: "open_issue", statement: `${word} callback tests do not cover concurrency`, subject: `${word} callbacks`, level: "public" });
  const masked = await addEntry(request, { kind: "preference", statement: `${word} reports go to lead@corp.example every Friday`, subject: `${word} reports`, level: "public" });
  expect(masked.statement).not.toContain("lead@corp.example");

  await page.goto("/");
  await page.getByTestId("nav-memory").click();
  await expect(page).toHaveURL(/\/memory$/);
  await page.getByTestId("memory-search").fill(word);
  const card = (id: string) => page.locator(`[data-testid="memory-entry"][data-entry-id="${id}"]`);
  await expect(page.getByTestId("memory-entry")).toHaveCount(3);

  // Filters: by kind, then by level.
  await page.getByTestId("memory-filter-kind").selectOption("open_issue");
  await expect(page.getByTestId("memory-entry")).toHaveCount(1);
  await expect(card(doomed.id)).toBeVisible();
  await page.getByTestId("memory-filter-kind").selectOption("");
  await page.getByTestId("memory-filter-level").selectOption("project");
  await expect(page.getByTestId("memory-entry")).toHaveCount(1);
  await expect(card(cited.id)).toBeVisible();
  await page.getByTestId("memory-filter-level").selectOption("");
  await expect(page.getByTestId("memory-entry")).toHaveCount(3);

  // What was redacted shows as its kind, never its content.
  await expect(card(masked.id).getByTestId("memory-entry-redactions")).toHaveText("Redacted: e-mail");
  await expect(card(masked.id)).not.toContainText("lead@corp.example");

  // Edit: the new text is redacted before it is stored, and the old one is kept in history.
  await card(cited.id).getByTestId("memory-entry-edit").click();
  await card(cited.id).getByTestId("memory-edit-statement").fill(`The ${word} order API was replaced; ask 13812345678`);
  await card(cited.id).getByTestId("memory-edit-submit").click();
  await expect(card(cited.id).getByTestId("memory-entry-statement")).toHaveText(`The ${word} order API was replaced; ask [redacted:phone]`);
  await expect(card(cited.id).getByTestId("memory-entry-redactions")).toHaveText("Redacted: phone");
  const afterEdit = (await getEntry(request, cited.id)).entry!;
  expect(afterEdit.statement).toBe(`The ${word} order API was replaced; ask [redacted:phone]`);
  expect(afterEdit.history.map((h) => h.reason)).toEqual(["edit"]);

  // Re-level with a grant.
  await card(doomed.id).getByTestId("memory-entry-edit").click();
  await card(doomed.id).getByTestId("memory-edit-level").selectOption("restricted");
  await card(doomed.id).getByTestId("memory-edit-grant").fill("code-reviewer, leader");
  await card(doomed.id).getByTestId("memory-edit-submit").click();
  await expect(card(doomed.id).getByTestId("memory-entry-level")).toHaveText("Restricted");
  await expect(card(doomed.id).getByTestId("memory-entry-grant")).toHaveText("code-reviewer, leader");
  expect((await getEntry(request, doomed.id)).entry).toMatchObject({ level: "restricted", grant: ["code-reviewer", "leader"] });

  // Delete, after a confirmation; cancelling keeps it.
  await card(doomed.id).getByTestId("memory-entry-delete").click();
  await card(doomed.id).getByTestId("memory-delete-dialog-cancel").click();
  await expect(card(doomed.id)).toBeVisible();
  await card(doomed.id).getByTestId("memory-entry-delete").click();
  await card(doomed.id).getByTestId("memory-delete-dialog-confirm").click();
  await expect(card(doomed.id)).toHaveCount(0);
  expect((await getEntry(request, doomed.id)).status).toBe(404);

  // Open source: the conversation, scrolled to the cited message.
  await card(cited.id).getByTestId("memory-entry-source").click();
  await expect(page).toHaveURL(new RegExp(`/conversations/${convId}\\?message=${messageId}$`));
  const target = page.getByTestId("leader-messages").locator('[data-search-target="true"]');
  await expect(target).toHaveCount(1);
  await expect(target).toHaveAttribute("data-message-id", messageId);
  await expect(target).toContainText(word);
});

test("an entry is added by hand from the Memory page", async ({ page, request }) => {
  const word = `wombat${uniqueSuffix()}`;
  await page.goto("/memory");
  await page.getByTestId("memory-add-open").click();
  await page.getByTestId("memory-add-kind").selectOption("preference");
  await page.getByTestId("memory-add-subject").fill(`${word} style`);
  await page.getByTestId("memory-add-statement").fill(`${word}: answers in Chinese with code examples`);
  await page.getByTestId("memory-add-submit").click();
  await expect(page.getByTestId("memory-notice")).toHaveText("Added.");
  await page.getByTestId("memory-search").fill(word);
  await expect(page.getByTestId("memory-entry")).toHaveCount(1);
  await expect(page.getByTestId("memory-entry-statement")).toHaveText(`${word}: answers in Chinese with code examples`);
  const list = (await (await request.get(`/api/memory/entries?q=${word}`)).json()) as { entries: Array<{ author: string; kind: string }> };
  expect(list.entries).toMatchObject([{ author: "person", kind: "preference" }]);
});

test("the Settings page stores memory's account-id patterns in models.json, refusing a bad one", async ({ page, astrionHome }) => {
  const fs = await import("node:fs");
  const path = await import("node:path");
  await page.goto("/settings");
  const field = page.getByTestId("settings-memory-patterns");
  await field.fill("{digit:8}");
  await page.getByTestId("settings-memory-patterns-save").click();
  await expect(page.getByTestId("settings-memory-patterns-error")).toContainText("refused");
  await field.fill("acct_{digit:8}\nUID-{digit:6-10}");
  await page.getByTestId("settings-memory-patterns-save").click();
  await expect(page.getByTestId("settings-memory-patterns-saved")).toBeVisible();
  const models = JSON.parse(fs.readFileSync(path.join(astrionHome, "models.json"), "utf8")) as { redaction?: unknown; models: Record<string, unknown> };
  expect(models.redaction).toEqual({ account_patterns: ["acct_{digit:8}", "UID-{digit:6-10}"] });
  expect(models.models.offline).toBeTruthy();
  // put the file back as the other specs expect it
  await field.fill("");
  await page.getByTestId("settings-memory-patterns-save").click();
  await expect(page.getByTestId("settings-memory-patterns-saved")).toBeVisible();
});

/**
 * People in real browsers (issue 32): a server of its own in team mode (ASTRION_TOKEN, a temp
 * data folder) and a fake OpenAI-compatible model whose sub-agent asks to run a command. The
 * owner signs in with the token and invites an editor and a viewer from the People page; each
 * joins in a browser context of their own (the viewer's in Chinese). The editor's message starts
 * the team; the viewer's message and Approve are refused with the translated message; the editor
 * may not approve either; the owner's approval goes through and the timeline says who approved.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { zhCN } from "../lib/i18n/dictionaries/zh-cn";
import { englishWords, namesToWords, visibleTexts } from "./english-words";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../test/helpers/fake-openai";
import { writeFakeModels } from "../test/helpers/models-file";
import { startServer, tempDir, type TestServer } from "../test/helpers/server";

const TOKEN = "e2e-people-token-correct-horse-battery";
const PASSWORD = "e2e-people-password";
const JSON_HEADERS = { "content-type": "application/json" };

type Msg = { role: string };

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  const isLeader = ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");
  if (isLeader) {
    if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "runner", task: "Run the build." } }]);
    return fakeText("Noted.");
  }
  if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ id: "e2e_people_1", name: "run_command", arguments: { command: "echo people-e2e" } }]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "Ran it." } }]);
}

let fake: FakeOpenAI;
let server: TestServer;
/** The link opened in the Chinese browser, whose join page is checked for English. */
let viewerLinkInChinese = "";

test.beforeAll(async () => {
  test.setTimeout(200_000);
  fake = await startFakeOpenAI({ script: handler });
  const home = tempDir("astrion-e2e-people-");
  writeFakeModels(home, fake.url);
  fs.mkdirSync(path.join(home, "agents"), { recursive: true });
  fs.writeFileSync(path.join(home, "agents", "runner.md"), "---\nname: runner\ndescription: Runs commands for the people spec\npermissions: [read, execute]\n---\nYou run commands.\n");
  server = await startServer({ home, env: { ASTRION_TOKEN: TOKEN, ASTRION_OWNER_NAME: "Mei", FAKE_OPENAI_KEY: "sk-fake-people-e2e", ASTRION_LEADER_BATCH_MS: "0" } });
});

test.afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** A new browser context (its own cookies) and a page in it. */
async function browserOf(browser: Browser, locale = "en-US"): Promise<Page> {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  await page.route((url) => url.hostname !== "127.0.0.1", (route) => route.abort());
  return page;
}

/** The owner creates an invitation link for `role` on the People page and reads it (shown once). */
async function inviteLink(owner: Page, role: "editor" | "viewer"): Promise<string> {
  await owner.getByTestId("invite-role").selectOption(role);
  const before = await owner.getByTestId("invitations").locator("li").count();
  await owner.getByTestId("invite-submit").click();
  await expect(owner.getByTestId("invitations").locator("li")).toHaveCount(before + 1);
  const link = (await owner.getByTestId("invite-link").textContent()) ?? "";
  expect(link).toMatch(new RegExp(`^${server.url}/join#[A-Za-z0-9_-]{20,}$`));
  return link;
}

/** The English words a Chinese page shows that are not one of `names` (e2e/english-words.ts's rules). */
async function englishOn(page: Page, where: string, names: string[]): Promise<string[]> {
  return englishWords(await visibleTexts(page), where, namesToWords(names)).map((f) => `${f.where}: "${f.word}" in "${f.text}"`);
}

/** Opens an invitation link, picks a display name and the password, and lands in the app. */
async function join(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await expect(page.getByTestId("join-form")).toBeVisible();
  if (link === viewerLinkInChinese) expect(await englishOn(page, "join", [])).toEqual([]);
  await expect(async () => {
    await page.getByTestId("join-name").fill(name);
    await page.getByTestId("join-password").fill(PASSWORD);
    await expect(page.getByTestId("join-submit")).toBeEnabled({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByTestId("join-submit").click();
  await expect(page).toHaveURL(`${server.url}/`);
  await expect(page.getByTestId("whoami")).toContainText(name);
}

test("the owner invites an editor and a viewer; the viewer's message and Approve are refused in their language", async ({ browser }) => {
  test.setTimeout(180_000);
  const owner = await browserOf(browser);
  await owner.goto(`${server.url}/`);
  await expect(owner).toHaveURL(/\/signin\?next=/);
  await owner.getByTestId("signin-token").fill(TOKEN);
  await owner.getByTestId("signin-submit").click();
  await expect(owner.getByTestId("whoami")).toContainText("Mei");
  await owner.getByTestId("nav-people").click();
  await expect(owner).toHaveURL(`${server.url}/people`);
  const editorLink = await inviteLink(owner, "editor");
  const viewerLink = await inviteLink(owner, "viewer");

  const editor = await browserOf(browser);
  await join(editor, editorLink, "Ada");
  await expect(editor.getByTestId("whoami")).toHaveAttribute("data-role", "editor");
  // Only the owner sees the People page in the navigation.
  await expect(editor.getByTestId("nav-people")).toHaveCount(0);
  // A link works once: opened again, it lets nobody in.
  const again = await browserOf(browser);
  await again.goto(editorLink);
  await again.getByTestId("join-name").fill("Eve");
  await again.getByTestId("join-password").fill(PASSWORD);
  await again.getByTestId("join-submit").click();
  await expect(again.getByTestId("join-error")).toHaveText("This invitation link was already used.");

  viewerLinkInChinese = viewerLink;
  const viewer = await browserOf(browser, "zh-CN");
  await join(viewer, viewerLink, "Lei");
  await expect(viewer.getByTestId("whoami")).toContainText("查看者");

  // The editor starts a conversation and the team: its agent asks to run a command.
  const created = await editor.request.post(`${server.url}/api/conversations`, { headers: JSON_HEADERS, data: { title: "People at work", project_path: tempDir("astrion-e2e-people-project-") } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).conversation.id as string;
  await editor.goto(`${server.url}/conversations/${id}`);
  const composer = editor.getByTestId("composer-input");
  await composer.fill("Please run the build");
  await composer.press("Enter");
  await expect(composer).toHaveValue("");
  await expect(editor.locator('[data-testid="chat-message"][data-kind="person"]').getByTestId("message-author")).toHaveText("Ada");

  const refused = zhCN["people.forbidden"].replace("{role}", zhCN["people.role.viewer"]);
  await viewer.goto(`${server.url}/conversations/${id}`);
  const viewerComposer = viewer.getByTestId("composer-input");
  await viewerComposer.fill("我也想说一句");
  await viewerComposer.press("Enter");
  await expect(viewer.getByTestId("composer-input-error")).toHaveText(refused.replace("{needed}", zhCN["people.role.editor"]));

  await expect(viewer.getByTestId("approval-card")).toBeVisible({ timeout: 30_000 });
  await viewer.getByTestId("approval-approve").click();
  await expect(viewer.getByTestId("approval-error")).toContainText(refused.replace("{needed}", zhCN["people.role.approver"]));

  // An editor may not approve either; the owner (above an approver) may.
  await editor.reload();
  await editor.getByTestId("approval-approve").click();
  await expect(editor.getByTestId("approval-error")).toContainText("Your role, editor, may not do this: it takes approver or above.");
  await owner.goto(`${server.url}/conversations/${id}`);
  await owner.getByTestId("approval-approve").click();
  await expect(owner.getByTestId("approval-card")).toHaveCount(0, { timeout: 30_000 });

  const timeline = await owner.request.get(`${server.url}/api/conversations/${id}/timeline`);
  const records = (await timeline.json()).records as Array<{ action: string; from_agent: string; envelope: { author?: { name: string } } }>;
  expect(records.find((r) => r.action === "user_message")?.envelope.author?.name).toBe("Ada");
  expect(records.filter((r) => r.action === "approval" && r.envelope.author).map((r) => [r.from_agent, r.envelope.author?.name])).toEqual([["user", "Mei"]]);

  // The People page, with people, invitations used and changes listed, is all Chinese in Chinese.
  await owner.context().addCookies([{ name: "astrion_locale", value: "zh-CN", url: server.url }]);
  await owner.goto(`${server.url}/people`);
  await expect(owner.getByTestId("people-table").locator("tbody tr")).toHaveCount(3);
  await expect(owner.getByTestId("activity-item").first()).toBeVisible();
  expect(await englishOn(owner, "people", ["Mei", "Ada", "Lei"])).toEqual([]);
});

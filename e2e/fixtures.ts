/**
 * Shared fixtures: page objects, the server's data folder (to check files on disk) and a
 * project folder for conversations. Every spec makes its own unique names, so specs never
 * depend on each other's data although they share one server.
 */
import { test as base } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { freePort } from "../test/helpers/server";
import { ConversationIndexPage } from "./pages/conversation-index-page";
import { RoleEditorPage } from "./pages/role-editor-page";
import { RoleLibraryPage } from "./pages/role-library-page";

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the specs through playwright.config.ts`);
  return value;
}

/** A role file on disk split into its parsed frontmatter, frontmatter text and body. */
export interface RoleFileOnDisk {
  text: string;
  frontmatterText: string;
  frontmatter: Record<string, unknown>;
  body: string;
}

/** Reads and splits `<ASTRION_HOME>/agents/<id>.md`. */
export function readRoleFile(home: string, id: string): RoleFileOnDisk {
  const text = fs.readFileSync(path.join(home, "agents", `${id}.md`), "utf8");
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`agents/${id}.md has no frontmatter:\n${text}`);
  const frontmatterText = match[1] ?? "";
  const parsed: unknown = parseYaml(frontmatterText);
  if (!parsed || typeof parsed !== "object") throw new Error(`agents/${id}.md frontmatter is not a mapping`);
  return { text, frontmatterText, frontmatter: parsed as Record<string, unknown>, body: match[2] ?? "" };
}

/** A short suffix that makes names unique within one run. */
export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

export const test = base.extend<{
  astrionHome: string;
  projectDir: string;
  roleLibrary: RoleLibraryPage;
  roleEditor: RoleEditorPage;
  conversationIndex: ConversationIndexPage;
}>({
  // Playwright requires an object pattern as the first argument, even an empty one.
  astrionHome: async ({}, provide) => provide(requiredEnv("E2E_ASTRION_HOME")),
  projectDir: async ({}, provide) => provide(requiredEnv("E2E_PROJECT_DIR")),
  roleLibrary: async ({ page }, provide) => provide(new RoleLibraryPage(page)),
  roleEditor: async ({ page }, provide) => provide(new RoleEditorPage(page)),
  conversationIndex: async ({ page }, provide) => provide(new ConversationIndexPage(page)),
});

export { expect } from "@playwright/test";

/**
 * Adds a model entry `key` whose endpoint nothing answers (a free loopback port) to the server's
 * models.json for the specs of the calling file, and puts the file back as it was after them.
 */
export function addDeadModel(key: string): void {
  const file = () => path.join(requiredEnv("E2E_ASTRION_HOME"), "models.json");
  let before = "";
  base.beforeAll(async () => {
    before = fs.readFileSync(file(), "utf8");
    const models = JSON.parse(before) as { models: Record<string, unknown> };
    models.models[key] = { label: "Dead endpoint", base_url: `http://127.0.0.1:${await freePort()}/v1`, model: "gone", provider: "generic", timeouts: { first_response_ms: 2_000 } };
    fs.writeFileSync(file(), JSON.stringify(models, null, 2));
  });
  base.afterAll(() => {
    fs.writeFileSync(file(), before);
  });
}

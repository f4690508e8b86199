/**
 * Recalled memory in the context inspector: an entry cited to an earlier conversation and one a
 * person added are recalled for a matching request, shown as the "Recalled memory" part of the
 * leader call's global slice with their levels, and the citation links to the source conversation.
 */
import { expect, test, uniqueSuffix } from "./fixtures";

const JSON_HEADERS = { "content-type": "application/json" };

test("the context inspector shows the memory recalled for a request, each entry with its source", async ({ page, request, projectDir }) => {
  test.setTimeout(120_000);
  const word = `wombat${uniqueSuffix()}`;
  const source = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title: `Earlier ${word}`, project_path: projectDir, model_key: "offline" } });
  expect(source.status(), await source.text()).toBe(201);
  const sourceId = ((await source.json()) as { conversation: { id: string } }).conversation.id;
  const add = async (data: Record<string, unknown>) => {
    const res = await request.post("/api/memory/entries", { headers: JSON_HEADERS, data });
    expect(res.status(), await res.text()).toBe(201);
    return ((await res.json()) as { entry: { id: string } }).entry.id;
  };
  const byPerson = await add({ kind: "preference", statement: `${word} answers should include a table`, subject: `${word} answers`, level: "public" });
  const projectEntry = await add({ kind: "fact", statement: `The ${word} ledger runs nightly`, subject: `${word} ledger`, project_path: projectDir, level: "project", source: { conversation_id: sourceId, message_ids: [] } });

  const created = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title: `Recall ${word}`, project_path: projectDir, model_key: "offline" } });
  const convId = ((await created.json()) as { conversation: { id: string } }).conversation.id;
  await page.goto(`/conversations/${convId}`);
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
  await page.getByTestId("composer-input").fill(`What do we know about the ${word} ledger and answers?`);
  await page.getByTestId("composer-input").press("Enter");

  const report = page.getByTestId("leader-messages").getByTestId("context-report").first();
  await expect(report).toBeVisible({ timeout: 30_000 });
  await report.getByTestId("context-report-toggle").click();
  const memory = report.getByTestId("context-memory");
  await expect(memory).toBeVisible();
  const line = (id: string) => memory.locator(`[data-testid="context-memory-line"][data-entry-id="${id}"]`);
  await expect(line(byPerson)).toHaveAttribute("data-level", "public");
  await expect(line(byPerson)).toHaveAttribute("data-included", "true");
  await expect(line(byPerson).getByTestId("context-memory-source")).toHaveText("added by a person");
  await expect(line(projectEntry)).toHaveAttribute("data-level", "project");
  const link = line(projectEntry).getByTestId("context-memory-source").getByRole("link");
  await expect(link).toHaveText(`from Earlier ${word}`);
  await expect(link).toHaveAttribute("href", `/conversations/${sourceId}`);

  const stop = page.getByTestId("stop-button");
  if (await stop.isVisible()) await stop.click();
});
